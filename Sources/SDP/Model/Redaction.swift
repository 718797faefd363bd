/// Secrets in a description: ICE passwords, SDES keys, and `k=` keys. Logs, errors and JSON
/// output show a description only after `redacted()`.
extension SessionDescription {
    public static let redactedMarker = "<redacted>"

    /// A copy with every secret value replaced by `<redacted>`; structure and other text unchanged.
    public func redacted() -> SessionDescription {
        var copy = self
        if copy.encryptionKey != nil { copy.encryptionKey = Self.redactedMarker }
        copy.attributes = copy.attributes.map(\.redacted)
        for index in copy.media.indices {
            if copy.media[index].encryptionKey != nil { copy.media[index].encryptionKey = Self.redactedMarker }
            copy.media[index].attributes = copy.media[index].attributes.map(\.redacted)
        }
        return copy
    }
}

extension Attribute {
    /// The attribute with its secret part, if it has one, replaced by `<redacted>`.
    public var redacted: Attribute {
        switch name {
        case ICEPassword.attributeName:
            return Attribute(name, value == nil ? nil : SessionDescription.redactedMarker)
        case Crypto.attributeName:
            guard let value, var fields = Lexer.fields(value), fields.count >= 3 else {
                return Attribute(name, value == nil ? nil : SessionDescription.redactedMarker)
            }
            fields[2] = "inline:" + SessionDescription.redactedMarker
            return Attribute(name, fields.joined(separator: " "))
        default:
            return self
        }
    }
}

extension SessionDescription {
    /// One SDP line with its secret, if it has one, replaced by `<redacted>`.
    public static func redactedLine(_ line: String) -> String {
        if line.hasPrefix("k=") { return "k=" + redactedMarker }
        guard line.hasPrefix("a=") else { return line }
        let body = line.dropFirst(2)
        let colon = body.firstIndex(of: ":")
        let attribute = Attribute(String(body[..<(colon ?? body.endIndex)]), colon.map { String(body[body.index(after: $0)...]) })
        let redacted = attribute.redacted
        return redacted == attribute ? line : "a=" + redacted.text
    }

    /// SDP text with its secrets replaced, every other byte kept, line endings included; works
    /// line by line, so text that does not parse is redacted too.
    public static func redactedText(_ text: String) -> String {
        var result = ""
        var line = Substring()
        var rest = Substring(text)
        while !rest.isEmpty {
            if let end = rest.firstIndex(where: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
                line = rest[..<end]
                result += redactedLine(String(line)) + String(rest[end])
                rest = rest[rest.index(after: end)...]
            } else {
                result += redactedLine(String(rest))
                rest = Substring()
            }
        }
        return result
    }
}
