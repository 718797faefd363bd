/// Writes a `SessionDescription` back to text in RFC 8866 order, with the document's own line
/// ending; an unmodified parsed description comes out byte for byte as it went in.
public enum SDPSerializer {
    public static func serialize(_ description: SessionDescription) -> String {
        var lines = self.lines(of: description)
        lines += Array(repeating: "", count: description.trailingEmptyLines)
        var text = ""
        let endings = description.mixedLineEndings
        let terminated = description.endsWithLineEnding && !lines.isEmpty ? lines.count : lines.count - 1
        // Written endings are followed only while they still describe these lines.
        let perLine = endings?.count == terminated ? endings : nil
        for (index, line) in lines.enumerated() {
            text += line
            if index < terminated { text += (perLine?[index] ?? description.lineEnding).rawValue }
        }
        return text
    }

    public static func bytes(_ description: SessionDescription) -> [UInt8] {
        Array(serialize(description).utf8)
    }

    static func lines(of sdp: SessionDescription) -> [String] {
        var session: [(type: UInt8, text: String)] = [(v, "v=" + sdp.version), (o, "o=" + sdp.origin.fields.joined(separator: " ")), (s, "s=" + sdp.sessionName)]
        if let information = sdp.information { session.append((i, "i=" + information)) }
        if let uri = sdp.uri { session.append((u, "u=" + uri)) }
        session += sdp.emails.map { (e, "e=" + $0) }
        session += sdp.phones.map { (p, "p=" + $0) }
        if let connection = sdp.connection { session.append((c, connectionLine(connection))) }
        session += sdp.bandwidths.map { (b, bandwidthLine($0)) }
        for timing in sdp.timing {
            session.append((t, "t=\(timing.start) \(timing.stop)"))
            session += timing.repeats.map { (r, "r=" + $0) }
        }
        if let zones = sdp.timeZones { session.append((z, "z=" + zones)) }
        if let key = sdp.encryptionKey { session.append((k, "k=" + key)) }
        session += sdp.attributes.map { (a, "a=" + $0.text) }
        var lines = arrange(session, as: sdp.sessionLineOrder)
        for media in sdp.media {
            var port = media.portText
            if let count = media.portCountText { port += "/" + count }
            lines.append((["m=" + media.kind, port, media.proto] + media.formats).joined(separator: " "))
            var section: [(type: UInt8, text: String)] = []
            if let information = media.information { section.append((i, "i=" + information)) }
            section += media.connections.map { (c, connectionLine($0)) }
            section += media.bandwidths.map { (b, bandwidthLine($0)) }
            if let key = media.encryptionKey { section.append((k, "k=" + key)) }
            section += media.attributes.map { (a, "a=" + $0.text) }
            lines += arrange(section, as: media.lineOrder)
        }
        return lines
    }

    /// Puts lines given in RFC order into a written order: each type's lines keep their relative
    /// order; lines the written order has no place for (added since parsing) follow in RFC order.
    private static func arrange(_ lines: [(type: UInt8, text: String)], as order: [UInt8]?) -> [String] {
        guard let order else { return lines.map(\.text) }
        var byType: [UInt8: [String]] = [:]
        for line in lines { byType[line.type, default: []].append(line.text) }
        var used: [UInt8: Int] = [:]
        var result: [String] = []
        result.reserveCapacity(lines.count)
        for type in order {
            let index = used[type, default: 0]
            guard let texts = byType[type], index < texts.count else { continue }
            result.append(texts[index])
            used[type] = index + 1
        }
        var seen: [UInt8: Int] = [:]
        for line in lines {
            let index = seen[line.type, default: 0]
            seen[line.type] = index + 1
            if index >= used[line.type, default: 0] { result.append(line.text) }
        }
        return result
    }

    private static func connectionLine(_ connection: Connection) -> String {
        "c=" + connection.fields.joined(separator: " ")
    }

    private static func bandwidthLine(_ bandwidth: Bandwidth) -> String {
        "b=\(bandwidth.type):\(bandwidth.valueText)"
    }

    private static let v = UInt8(ascii: "v"), o = UInt8(ascii: "o"), s = UInt8(ascii: "s"), i = UInt8(ascii: "i")
    private static let u = UInt8(ascii: "u"), e = UInt8(ascii: "e"), p = UInt8(ascii: "p"), c = UInt8(ascii: "c")
    private static let b = UInt8(ascii: "b"), t = UInt8(ascii: "t"), r = UInt8(ascii: "r"), z = UInt8(ascii: "z")
    private static let k = UInt8(ascii: "k"), a = UInt8(ascii: "a")
}

extension SessionDescription {
    /// Parses with the default limits.
    public init(parsing text: String) throws(SDPParseError) {
        self = try SDPParser().parse(text)
    }

    /// The SDP text.
    public var text: String { SDPSerializer.serialize(self) }
}
