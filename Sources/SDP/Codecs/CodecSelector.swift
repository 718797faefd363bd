/// Names a codec the way users write it: `opus`, `PCMU/8000`, `opus/48000/2`, or
/// `H264/90000;profile-level-id=42e029` to tell apart codecs that share a name.
public struct CodecSelector: Sendable, Equatable, CustomStringConvertible {
    public var name: String
    public var clockRate: Int?
    public var channels: Int?
    /// fmtp properties the codec must carry, compared without regard to case.
    public var parameters: [String: String]

    public init(name: String, clockRate: Int? = nil, channels: Int? = nil, parameters: [String: String] = [:]) {
        self.name = name
        self.clockRate = clockRate
        self.channels = channels
        self.parameters = parameters
    }

    public init(parsing text: String) throws(MungeError) {
        let parts = Lexer.split(text, on: 0x3B)
        let encoding = Lexer.split(parts[0], on: 0x2F)
        guard !encoding[0].isEmpty, Lexer.isToken(encoding[0]), encoding.count <= 3 else {
            throw MungeError("codec \"\(text)\" must be name[/rate[/channels]][;key=value], e.g. opus/48000/2")
        }
        var clockRate: Int?
        var channels: Int?
        if encoding.count >= 2 {
            guard let rate = Lexer.integer(encoding[1], in: 1...10_000_000) else {
                throw MungeError("codec \"\(text)\": clock rate must be a positive number")
            }
            clockRate = rate
        }
        if encoding.count == 3 {
            guard let count = Lexer.integer(encoding[2], in: 1...255) else {
                throw MungeError("codec \"\(text)\": channels must be a number from 1 to 255")
            }
            channels = count
        }
        var parameters: [String: String] = [:]
        for part in parts.dropFirst() {
            let (key, value) = Lexer.splitFirst(part, at: 0x3D)
            guard Lexer.isToken(key), let value, !value.isEmpty else {
                throw MungeError("codec \"\(text)\": fmtp property must be key=value, e.g. profile-level-id=42e029")
            }
            parameters[key.lowercased()] = value
        }
        self.init(name: encoding[0], clockRate: clockRate, channels: channels, parameters: parameters)
    }

    public func matches(_ codec: Codec) -> Bool {
        guard codec.name.lowercased() == name.lowercased() else { return false }
        if let clockRate, clockRate != codec.clockRate { return false }
        if let channels, channels != codec.channelCount { return false }
        guard !parameters.isEmpty else { return true }
        let fmtp = FormatParameters(format: String(codec.payloadType), parameters: codec.parameters ?? "")
        return parameters.allSatisfy { key, value in fmtp.value(for: key)?.lowercased() == value.lowercased() }
    }

    public var description: String {
        var text = name
        if let clockRate { text += "/\(clockRate)" }
        if let channels { text += "/\(channels)" }
        for (key, value) in parameters.sorted(by: { $0.key < $1.key }) { text += ";\(key)=\(value)" }
        return text
    }
}
