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
}

extension SessionDescription {
    /// SDP text with its secrets overwritten by `REDACTED…` runs of the same length (SDES keys
    /// keep their `=` padding, `k=` becomes `k=prompt`), every other byte kept: unlike
    /// `<redacted>`, the result still parses, so a recorded SDP can serve as a test fixture.
    public static func maskedText(_ text: String) -> String {
        mapLines(text) { line in
            if line.hasPrefix("k=") { return "k=prompt" }
            if line.hasPrefix("a=\(ICEPassword.attributeName):") {
                let prefix = "a=\(ICEPassword.attributeName):"
                return prefix + mask(count: line.count - prefix.count)
            }
            guard line.hasPrefix("a=\(Crypto.attributeName):") else { return line }
            var fields = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 3 else { return line }
            fields[2] = fields[2].split(separator: ";", omittingEmptySubsequences: false).map { parameter in
                guard parameter.hasPrefix("inline:") else { return String(parameter) }
                let body = parameter.dropFirst("inline:".count)
                let key = body.prefix { $0 != "|" }
                let padding = key.reversed().prefix { $0 == "=" }.count
                return "inline:" + mask(count: key.count - padding) + String(repeating: "=", count: padding) + body.dropFirst(key.count)
            }.joined(separator: ";")
            return fields.joined(separator: " ")
        }
    }

    private static func mask(count: Int) -> String {
        String(String(repeating: "REDACTED", count: count / 8 + 1).prefix(max(count, 0)))
    }

    /// Applies `transform` to each line, keeping each line's own terminator.
    static func mapLines(_ text: String, _ transform: (String) -> String) -> String {
        var result = ""
        var rest = Substring(text)
        while !rest.isEmpty {
            if let end = rest.firstIndex(where: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
                result += transform(String(rest[..<end])) + String(rest[end])
                rest = rest[rest.index(after: end)...]
            } else {
                result += transform(String(rest))
                rest = Substring()
            }
        }
        return result
    }
}
