/// A parsed SDP session description (RFC 8866).
///
/// Every field keeps the exact text it was parsed from, so that serializing an unmodified
/// description gives back the input byte for byte. Numeric views are computed from that text.
public struct SessionDescription: Sendable, Equatable {
    /// `v=`; always "0" for RFC 8866.
    public var version: String
    /// `o=`
    public var origin: Origin
    /// `s=`
    public var sessionName: String
    /// `i=`
    public var information: String?
    /// `u=`
    public var uri: String?
    /// `e=` lines, in order.
    public var emails: [String]
    /// `p=` lines, in order.
    public var phones: [String]
    /// `c=` at session level.
    public var connection: Connection?
    /// `b=` lines at session level.
    public var bandwidths: [Bandwidth]
    /// `t=` lines, each with its `r=` lines.
    public var timing: [Timing]
    /// `z=`, kept as written.
    public var timeZones: String?
    /// `k=` (obsolete in RFC 8866, still parsed). A secret: never logged.
    public var encryptionKey: String?
    /// Session-level `a=` lines, in order.
    public var attributes: [Attribute]
    /// `m=` sections, in order.
    public var media: [MediaDescription]
    /// The line terminator the document was written with.
    public var lineEnding: LineEnding
    /// Whether the last line carries a terminator (RFC 8866 says it must; some stacks omit it).
    public var endsWithLineEnding: Bool
    /// The terminator of every line as written, when the document mixes CRLF and LF; the
    /// serializer follows it while the line count is unchanged, and `lineEnding` otherwise.
    public var mixedLineEndings: [LineEnding]?
    /// Empty lines written after the last line (tolerated, kept for the round trip).
    public var trailingEmptyLines: Int = 0
    /// The session-level line types (`v`, `o`, `c`, `t`, `a`, ...) in written order, when that
    /// order is not RFC 8866's; the serializer follows it so the document comes back as it was.
    var sessionLineOrder: [UInt8]?

    public init(
        version: String = "0",
        origin: Origin,
        sessionName: String = "-",
        information: String? = nil,
        uri: String? = nil,
        emails: [String] = [],
        phones: [String] = [],
        connection: Connection? = nil,
        bandwidths: [Bandwidth] = [],
        timing: [Timing] = [Timing(start: "0", stop: "0")],
        timeZones: String? = nil,
        encryptionKey: String? = nil,
        attributes: [Attribute] = [],
        media: [MediaDescription] = [],
        lineEnding: LineEnding = .crlf,
        endsWithLineEnding: Bool = true
    ) {
        self.version = version
        self.origin = origin
        self.sessionName = sessionName
        self.information = information
        self.uri = uri
        self.emails = emails
        self.phones = phones
        self.connection = connection
        self.bandwidths = bandwidths
        self.timing = timing
        self.timeZones = timeZones
        self.encryptionKey = encryptionKey
        self.attributes = attributes
        self.media = media
        self.lineEnding = lineEnding
        self.endsWithLineEnding = endsWithLineEnding
    }
}

public enum LineEnding: String, Sendable, Equatable, Codable {
    case crlf = "\r\n"
    case lf = "\n"
}

/// `o=<username> <sess-id> <sess-version> <nettype> <addrtype> <unicast-address>`
public struct Origin: Sendable, Equatable, Codable {
    public var username: String
    public var sessionId: String
    public var sessionVersion: String
    public var networkType: String
    public var addressType: String
    public var address: String

    public init(
        username: String = "-", sessionId: String, sessionVersion: String = "2",
        networkType: String = "IN", addressType: String = "IP4", address: String = "127.0.0.1"
    ) {
        self.username = username
        self.sessionId = sessionId
        self.sessionVersion = sessionVersion
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }

    var fields: [String] { [username, sessionId, sessionVersion, networkType, addressType, address] }
}

/// `c=<nettype> <addrtype> <connection-address>`
public struct Connection: Sendable, Equatable, Codable {
    public var networkType: String
    public var addressType: String
    public var address: String

    public init(networkType: String = "IN", addressType: String = "IP4", address: String) {
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }

    var fields: [String] { [networkType, addressType, address] }
}

/// `b=<bwtype>:<bandwidth>`
public struct Bandwidth: Sendable, Equatable, Encodable {
    public var type: String
    /// The value as written; `AS` and `CT` are kbps, `TIAS` is bps (RFC 3890).
    public var valueText: String

    public init(type: String, value: UInt64) {
        self.type = type
        self.valueText = String(value)
    }

    init(type: String, valueText: String) {
        self.type = type
        self.valueText = valueText
    }

    public var value: UInt64? { UInt64(valueText) }

    private enum Keys: String, CodingKey { case type, value }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(type, forKey: .type)
        try container.encode(value, forKey: .value)
    }
}

/// `t=<start-time> <stop-time>` and the `r=` lines that follow it, kept as written.
public struct Timing: Sendable, Equatable, Codable {
    public var start: String
    public var stop: String
    public var repeats: [String]

    public init(start: String, stop: String, repeats: [String] = []) {
        self.start = start
        self.stop = stop
        self.repeats = repeats
    }
}

/// One `a=` line: `a=<name>` (a flag) or `a=<name>:<value>`.
public struct Attribute: Sendable, Equatable, Codable {
    public var name: String
    /// `nil` for a flag attribute; an empty string for `a=name:` with nothing after the colon.
    public var value: String?

    public init(_ name: String, _ value: String? = nil) {
        self.name = name
        self.value = value
    }

    var text: String {
        guard let value else { return name }
        return name + ":" + value
    }
}
