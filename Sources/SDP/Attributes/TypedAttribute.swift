/// Why an attribute's value does not fit its grammar. The parser adds the line number.
public struct AttributeValueError: Error, Sendable, Equatable {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
}

/// A typed view of one kind of `a=` line. The attribute list stays the source of truth; a view
/// is parsed from it on demand and can be written back as a new `Attribute`.
public protocol TypedAttribute: Sendable {
    static var attributeName: String { get }
    init(attributeValue: String?) throws(AttributeValueError)
    /// The value this view serializes to (`nil` for a flag).
    var attributeValue: String? { get }
}

extension TypedAttribute {
    public var attribute: Attribute { Attribute(Self.attributeName, attributeValue) }

    static func requireValue(_ value: String?) throws(AttributeValueError) -> String {
        guard let value, !value.isEmpty else {
            throw AttributeValueError("a=\(attributeName) needs a value")
        }
        return value
    }

    static func requireFields(_ value: String?, atLeast count: Int, _ shape: String) throws(AttributeValueError) -> [String] {
        let text = try requireValue(value)
        guard let fields = Lexer.fields(text), fields.count >= count else {
            throw AttributeValueError("a=\(attributeName) must be \"\(shape)\" with single spaces")
        }
        return fields
    }
}

/// A flag attribute, such as `a=rtcp-mux`, that takes no value.
public protocol FlagAttribute: TypedAttribute {
    init()
}

extension FlagAttribute {
    public init(attributeValue: String?) throws(AttributeValueError) {
        guard attributeValue == nil else {
            throw AttributeValueError("a=\(Self.attributeName) is a flag and takes no value")
        }
        self.init()
    }

    public var attributeValue: String? { nil }
}

extension Array where Element == Attribute {
    /// Every attribute of the view's kind that parses.
    public func values<T: TypedAttribute>(_ type: T.Type) -> [T] {
        compactMap { attribute in
            guard attribute.name == T.attributeName else { return nil }
            return try? T(attributeValue: attribute.value)
        }
    }

    public func first<T: TypedAttribute>(_ type: T.Type) -> T? {
        for attribute in self where attribute.name == T.attributeName {
            if let value = try? T(attributeValue: attribute.value) { return value }
        }
        return nil
    }

    public func contains(named name: String) -> Bool {
        contains { $0.name == name }
    }

    public func contains<T: FlagAttribute>(_ type: T.Type) -> Bool {
        contains(named: T.attributeName)
    }
}
