/// A SIP request or response (RFC 3261 §7), kept losslessly: a received message that is not
/// changed serializes to the bytes it came as, so it can be relayed, logged and replayed exactly.
/// Header fields are kept in order with their repeats; the typed views (`via`, `cseq`…) read them
/// on demand and throw `SIPParseError` naming the field's line.
package struct SIPMessage: Sendable, Equatable {
    package enum StartLine: Sendable, Equatable {
        case request(method: String, uri: String)
        case response(status: Int, reason: String)
    }

    package private(set) var startLine: StartLine
    package private(set) var version: String
    package private(set) var headers: [SIPHeader]
    package internal(set) var body: [UInt8]
    /// The start line and the empty line after the header fields as received; nil when built or
    /// once the start line changes.
    private var rawStartLine: [UInt8]?
    private var rawSeparator: [UInt8]

    init(startLine: StartLine, version: String, headers: [SIPHeader], body: [UInt8], rawStartLine: [UInt8]?, rawSeparator: [UInt8]) {
        self.startLine = startLine
        self.version = version
        self.headers = headers
        self.body = body
        self.rawStartLine = rawStartLine
        self.rawSeparator = rawSeparator
    }

    /// A request of ours. Content-Length is set from the body.
    package static func request(method: String, uri: String, headers: [SIPHeader], body: [UInt8] = []) -> SIPMessage {
        var message = SIPMessage(startLine: .request(method: method, uri: uri), version: "SIP/2.0", headers: headers, body: [],
                                 rawStartLine: nil, rawSeparator: Array("\r\n".utf8))
        message.setBody(body)
        return message
    }

    /// A response of ours. Content-Length is set from the body.
    package static func response(status: Int, reason: String, headers: [SIPHeader], body: [UInt8] = []) -> SIPMessage {
        var message = SIPMessage(startLine: .response(status: status, reason: reason), version: "SIP/2.0", headers: headers, body: [],
                                 rawStartLine: nil, rawSeparator: Array("\r\n".utf8))
        message.setBody(body)
        return message
    }

    package var isRequest: Bool { if case .request = startLine { true } else { false } }
    package var method: String? { if case .request(let method, _) = startLine { method } else { nil } }
    package var requestURI: String? { if case .request(_, let uri) = startLine { uri } else { nil } }
    package var status: Int? { if case .response(let status, _) = startLine { status } else { nil } }

    // MARK: Header fields

    /// Every field of this name, compact forms included, in order.
    package func headers(_ name: SIPHeaderName) -> [SIPHeader] { headers.filter { $0.name == name } }

    /// The first field of this name.
    package func header(_ name: SIPHeaderName) -> SIPHeader? { headers.first { $0.name == name } }

    /// Every value of a list field across its repeats: `Via: a, b` then `Via: c` gives a, b, c
    /// (RFC 3261 §7.3.1 makes the two forms equal).
    package func values(_ name: SIPHeaderName) -> [(value: String, line: Int)] {
        headers(name).flatMap { header in header.values.map { ($0, header.line) } }
    }

    /// Puts a field before every other (a Via of ours, a Route).
    package mutating func prepend(_ header: SIPHeader) { headers.insert(header, at: 0) }

    package mutating func append(_ header: SIPHeader) { headers.append(header) }

    /// Replaces every field of this name by one with this value, where the first one was.
    package mutating func set(_ name: SIPHeaderName, _ value: String) {
        let first = headers.firstIndex { $0.name == name }
        headers.removeAll { $0.name == name }
        headers.insert(SIPHeader(name, value), at: min(first ?? headers.count, headers.count))
    }

    package mutating func remove(_ name: SIPHeaderName) { headers.removeAll { $0.name == name } }

    /// Removes the first value of a list field (a proxy's own Via from a response).
    package mutating func removeFirstValue(_ name: SIPHeaderName) {
        guard let index = headers.firstIndex(where: { $0.name == name }) else { return }
        let rest = headers[index].values.dropFirst()
        if rest.isEmpty {
            headers.remove(at: index)
        } else {
            headers[index] = SIPHeader(headers[index].name, rest.joined(separator: ", "))
        }
    }

    package mutating func setBody(_ bytes: [UInt8]) {
        body = bytes
        set(.contentLength, String(bytes.count))
    }

    // MARK: Writing

    /// The message as it goes on the wire; a received message unchanged is its bytes as received.
    package var serialized: [UInt8] {
        var bytes = rawStartLine ?? Array("\(startLineText)\r\n".utf8)
        bytes.reserveCapacity(bytes.count + body.count + headers.count * 48)
        for header in headers { bytes += header.bytes }
        bytes += rawSeparator
        bytes += body
        return bytes
    }

    package var serializedText: String { String(decoding: serialized, as: UTF8.self) }

    private var startLineText: String {
        switch startLine {
        case .request(let method, let uri): "\(method) \(uri) \(version)"
        case .response(let status, let reason): "\(version) \(status) \(reason)"
        }
    }
}
