/// The structure `parley sdp parse --json` prints. Encode `redacted()` descriptions only.
extension SessionDescription: Encodable {
    private enum Keys: String, CodingKey {
        case version, origin, sessionName, information, uri, emails, phones, connection, bandwidths
        case timing, timeZones, encryptionKey, attributes, media, lineEnding, endsWithLineEnding
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(version, forKey: .version)
        try container.encode(origin, forKey: .origin)
        try container.encode(sessionName, forKey: .sessionName)
        try container.encodeIfPresent(information, forKey: .information)
        try container.encodeIfPresent(uri, forKey: .uri)
        try container.encode(emails, forKey: .emails)
        try container.encode(phones, forKey: .phones)
        try container.encodeIfPresent(connection, forKey: .connection)
        try container.encode(bandwidths, forKey: .bandwidths)
        try container.encode(timing, forKey: .timing)
        try container.encodeIfPresent(timeZones, forKey: .timeZones)
        try container.encodeIfPresent(encryptionKey, forKey: .encryptionKey)
        try container.encode(attributes, forKey: .attributes)
        try container.encode(media, forKey: .media)
        try container.encode(lineEnding == .crlf ? "CRLF" : "LF", forKey: .lineEnding)
        try container.encode(endsWithLineEnding, forKey: .endsWithLineEnding)
    }
}

extension MediaDescription: Encodable {
    private enum Keys: String, CodingKey {
        case kind, port, portCount, proto, formats, information, connections, bandwidths, encryptionKey
        case mid, direction, codecs, attributes
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(port, forKey: .port)
        try container.encodeIfPresent(portCountText.flatMap { Int($0) }, forKey: .portCount)
        try container.encode(proto, forKey: .proto)
        try container.encode(formats, forKey: .formats)
        try container.encodeIfPresent(information, forKey: .information)
        try container.encode(connections, forKey: .connections)
        try container.encode(bandwidths, forKey: .bandwidths)
        try container.encodeIfPresent(encryptionKey, forKey: .encryptionKey)
        try container.encodeIfPresent(attributes.first(MediaID.self)?.tag, forKey: .mid)
        try container.encodeIfPresent(attributes.direction, forKey: .direction)
        try container.encode(codecs, forKey: .codecs)
        try container.encode(attributes, forKey: .attributes)
    }
}

extension Codec: Encodable {
    private enum Keys: String, CodingKey { case payloadType, name, clockRate, channels, parameters }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(payloadType, forKey: .payloadType)
        try container.encode(name, forKey: .name)
        try container.encode(clockRate, forKey: .clockRate)
        try container.encodeIfPresent(channels, forKey: .channels)
        try container.encodeIfPresent(parameters, forKey: .parameters)
    }
}
