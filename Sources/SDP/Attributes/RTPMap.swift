/// `a=rtpmap:<payload type> <encoding name>/<clock rate>[/<encoding parameters>]` (RFC 8866 §6.6)
public struct RTPMap: TypedAttribute, Equatable {
    public static let attributeName = "rtpmap"
    public var payloadType: Int
    public var encodingName: String
    public var clockRate: Int
    /// Channels for audio; `nil` when not written (meaning one channel).
    public var channels: Int?

    public init(payloadType: Int, encodingName: String, clockRate: Int, channels: Int? = nil) {
        self.payloadType = payloadType
        self.encodingName = encodingName
        self.clockRate = clockRate
        self.channels = channels
    }

    public init(attributeValue: String?) throws(AttributeValueError) {
        let fields = try Self.requireFields(attributeValue, atLeast: 2, "<payload type> <encoding>/<clock rate>[/<channels>]")
        guard fields.count == 2 else {
            throw AttributeValueError("a=rtpmap must be \"<payload type> <encoding>/<clock rate>[/<channels>]\"")
        }
        guard let payloadType = Lexer.integer(fields[0], in: 0...127) else {
            throw AttributeValueError("a=rtpmap payload type must be a number from 0 to 127")
        }
        let encoding = Lexer.split(fields[1], on: 0x2F)
        guard encoding.count == 2 || encoding.count == 3, Lexer.isToken(encoding[0]) else {
            throw AttributeValueError("a=rtpmap encoding must be \"<name>/<clock rate>[/<channels>]\"")
        }
        guard let clockRate = Lexer.integer(encoding[1], in: 1...10_000_000) else {
            throw AttributeValueError("a=rtpmap clock rate must be a positive number")
        }
        var channels: Int?
        if encoding.count == 3 {
            guard let count = Lexer.integer(encoding[2], in: 1...255) else {
                throw AttributeValueError("a=rtpmap channel count must be a number from 1 to 255")
            }
            channels = count
        }
        self.init(payloadType: payloadType, encodingName: encoding[0], clockRate: clockRate, channels: channels)
    }

    public var attributeValue: String? {
        var text = "\(payloadType) \(encodingName)/\(clockRate)"
        if let channels { text += "/\(channels)" }
        return text
    }
}
