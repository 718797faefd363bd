/// Writes a `SessionDescription` back to text in RFC 8866 order, with the document's own line
/// ending; an unmodified parsed description comes out byte for byte as it went in.
public enum SDPSerializer {
    public static func serialize(_ description: SessionDescription) -> String {
        let lines = self.lines(of: description)
        let ending = description.lineEnding.rawValue
        var text = lines.joined(separator: ending)
        if description.endsWithLineEnding && !lines.isEmpty { text += ending }
        return text
    }

    public static func bytes(_ description: SessionDescription) -> [UInt8] {
        Array(serialize(description).utf8)
    }

    static func lines(of sdp: SessionDescription) -> [String] {
        var lines = ["v=" + sdp.version, "o=" + sdp.origin.fields.joined(separator: " "), "s=" + sdp.sessionName]
        if let information = sdp.information { lines.append("i=" + information) }
        if let uri = sdp.uri { lines.append("u=" + uri) }
        lines += sdp.emails.map { "e=" + $0 }
        lines += sdp.phones.map { "p=" + $0 }
        if let connection = sdp.connection { lines.append(connectionLine(connection)) }
        lines += sdp.bandwidths.map(bandwidthLine)
        for timing in sdp.timing {
            lines.append("t=\(timing.start) \(timing.stop)")
            lines += timing.repeats.map { "r=" + $0 }
        }
        if let zones = sdp.timeZones { lines.append("z=" + zones) }
        if let key = sdp.encryptionKey { lines.append("k=" + key) }
        lines += sdp.attributes.map { "a=" + $0.text }
        for media in sdp.media {
            var port = media.portText
            if let count = media.portCountText { port += "/" + count }
            lines.append((["m=" + media.kind, port, media.proto] + media.formats).joined(separator: " "))
            if let information = media.information { lines.append("i=" + information) }
            lines += media.connections.map(connectionLine)
            lines += media.bandwidths.map(bandwidthLine)
            if let key = media.encryptionKey { lines.append("k=" + key) }
            lines += media.attributes.map { "a=" + $0.text }
        }
        return lines
    }

    private static func connectionLine(_ connection: Connection) -> String {
        "c=" + connection.fields.joined(separator: " ")
    }

    private static func bandwidthLine(_ bandwidth: Bandwidth) -> String {
        "b=\(bandwidth.type):\(bandwidth.valueText)"
    }
}

extension SessionDescription {
    /// Parses with the default limits.
    public init(parsing text: String) throws(SDPParseError) {
        self = try SDPParser().parse(text)
    }

    /// The SDP text.
    public var text: String { SDPSerializer.serialize(self) }
}
