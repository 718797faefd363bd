/// `;name=value` parameters in the order written; names compare without regard to case.
package struct SIPParameters: Sendable, Equatable, CustomStringConvertible {
    package struct Parameter: Sendable, Equatable {
        package let name: String
        /// nil for a parameter written without `=` (`;lr`, `;rport`).
        package let value: String?
        /// The value was a quoted string (its quotes and escapes already removed).
        package let quoted: Bool
    }

    package private(set) var items: [Parameter] = []

    package init() {}

    package mutating func append(_ name: String, _ value: String?, quoted: Bool = false) {
        items.append(Parameter(name: name, value: value, quoted: quoted))
    }

    /// Sets a parameter, replacing one of the same name where it was.
    package mutating func set(_ name: String, _ value: String?, quoted: Bool = false) {
        let parameter = Parameter(name: name, value: value, quoted: quoted)
        if let index = index(name) { items[index] = parameter } else { items.append(parameter) }
    }

    package mutating func remove(_ name: String) { items.removeAll { $0.name.lowercased() == name.lowercased() } }

    package func contains(_ name: String) -> Bool { index(name) != nil }

    /// The value of a parameter (nil when absent or written without a value).
    package subscript(name: String) -> String? { index(name).flatMap { items[$0].value } }

    private func index(_ name: String) -> Int? {
        let key = name.lowercased()
        return items.firstIndex { $0.name.lowercased() == key }
    }

    /// `;a=b;c;d="e f"`, as it goes after a URI or a value.
    package var description: String {
        items.map { item in
            guard let value = item.value else { return ";\(item.name)" }
            return ";\(item.name)=\(item.quoted ? SIPValueScanner.quote(value) : value)"
        }.joined()
    }
}
