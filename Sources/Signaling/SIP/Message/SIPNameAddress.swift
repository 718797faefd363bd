/// A From, To, Contact, Route or Record-Route value: `"Display" <uri>;params` or a bare
/// `uri;params` (RFC 3261 §20.10, §25.1 name-addr / addr-spec). In the bare form every
/// `;param` belongs to the header field, not to the URI.
package struct SIPNameAddress: Sendable, Equatable, CustomStringConvertible {
    /// Unquoted and unescaped; nil when none was written.
    package var displayName: String?
    /// The URI as written between the brackets (any scheme: tel:, urn:…).
    package var uri: String
    package var parameters: SIPParameters

    package init(displayName: String? = nil, uri: String, parameters: SIPParameters = SIPParameters()) {
        self.displayName = displayName
        self.uri = uri
        self.parameters = parameters
    }

    package init(parsing value: String, line: Int = 0, field: String = "name-addr") throws(SIPParseError) {
        var scanner = SIPValueScanner(value, line: line, field: field)
        scanner.skipWhitespace()
        if scanner.peek == 0x22 {
            displayName = try scanner.quotedString()
            guard scanner.consume(0x3C) else { throw scanner.error("a display name must be followed by <uri>") }
        } else if value.utf8.contains(0x3C) {
            var words: [String] = []
            while let word = scanner.token() {
                words.append(word)
                scanner.skipWhitespace()
            }
            guard scanner.consume(0x3C) else { throw scanner.error("a display name that is not quoted must be tokens") }
            displayName = words.isEmpty ? nil : words.joined(separator: " ")
        } else {
            guard let uri = scanner.run(while: { $0 != 0x3B && $0 != 0x20 && $0 != 0x09 && $0 != 0x2C }),
                  SIPValueScanner.isAbsoluteURI(uri) else {
                throw scanner.error("not a URI or a <URI>")
            }
            self.uri = uri
            parameters = try scanner.parameters()
            try scanner.expectEnd()
            return
        }
        guard let uri = scanner.run(while: { $0 != 0x3E }), SIPValueScanner.isAbsoluteURI(uri) else {
            throw scanner.error("the value between < and > is not a URI")
        }
        self.uri = uri
        try scanner.expect(0x3E, ">")
        parameters = try scanner.parameters()
        try scanner.expectEnd()
    }

    /// The URI as a sip: or sips: URI (a tel: URI throws).
    package func sipURI(line: Int = 0) throws(SIPParseError) -> SIPURI { try SIPURI(parsing: uri, line: line) }

    package var tag: String? { parameters["tag"] }

    /// Always in the bracketed form, so URI parameters and header parameters stay apart.
    package var description: String {
        let name = displayName.map { SIPValueScanner.quote($0) + " " } ?? ""
        return "\(name)<\(uri)>\(parameters)"
    }
}
