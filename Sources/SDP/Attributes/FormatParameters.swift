/// `a=fmtp:<format> <format specific parameters>` (RFC 8866 §6.15)
public struct FormatParameters: TypedAttribute, Equatable {
    public static let attributeName = "fmtp"
    public var format: String
    /// The parameter text exactly as written.
    public var parameters: String

    public init(format: String, parameters: String) {
        self.format = format
        self.parameters = parameters
    }

    public init(attributeValue: String?) throws(AttributeValueError) {
        let text = try Self.requireValue(attributeValue)
        let (format, rest) = Lexer.splitFirst(text, at: Lexer.space)
        guard Lexer.isToken(format) else {
            throw AttributeValueError("a=fmtp must start with a format (payload type) token")
        }
        guard let rest, !rest.isEmpty else {
            throw AttributeValueError("a=fmtp must be \"<format> <parameters>\" with one space after the format")
        }
        self.init(format: format, parameters: rest)
    }

    public var attributeValue: String? { "\(format) \(parameters)" }

    public var payloadType: Int? { Lexer.integer(format, in: 0...127) }

    /// `key=value` pairs separated by `;` (optionally followed by spaces), in written order.
    /// A part without `=` gets a nil value (e.g. `0-15` for telephone-event).
    public var pairs: [(key: String, value: String?)] {
        Lexer.split(parameters, on: 0x3B).compactMap { part in
            let trimmed = part.drop { $0 == " " }
            guard !trimmed.isEmpty else { return nil }
            let (key, value) = Lexer.splitFirst(trimmed, at: 0x3D)
            return (key, value)
        }
    }

    public func value(for key: String) -> String? {
        pairs.first { $0.key.lowercased() == key.lowercased() }?.value ?? nil
    }
}
