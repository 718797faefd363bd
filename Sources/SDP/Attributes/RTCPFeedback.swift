/// `a=rtcp-fb:<payload type|*> <type> [<parameters>]` (RFC 4585 §4.2)
public struct RTCPFeedback: TypedAttribute, Equatable {
    public static let attributeName = "rtcp-fb"
    /// A payload type number or `*`.
    public var format: String
    /// Everything after the format, e.g. `nack pli`.
    public var feedback: String

    public init(format: String, feedback: String) {
        self.format = format
        self.feedback = feedback
    }

    public init(attributeValue: String?) throws(AttributeValueError) {
        let text = try Self.requireValue(attributeValue)
        let (format, rest) = Lexer.splitFirst(text, at: Lexer.space)
        guard format == "*" || Lexer.integer(format, in: 0...127) != nil else {
            throw AttributeValueError("a=rtcp-fb must start with a payload type (0-127) or *")
        }
        guard let rest, Lexer.fields(rest) != nil else {
            throw AttributeValueError("a=rtcp-fb must be \"<payload type> <feedback type> [<parameters>]\"")
        }
        self.init(format: format, feedback: rest)
    }

    public var attributeValue: String? { "\(format) \(feedback)" }
}
