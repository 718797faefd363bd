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
