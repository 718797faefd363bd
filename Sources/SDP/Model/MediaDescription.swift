/// One `m=` section and the lines that belong to it.
public struct MediaDescription: Sendable, Equatable {
    /// `audio`, `video`, `application`, ...
    public var kind: String
    /// The port as written; see `port`.
    public var portText: String
    /// The `/<number of ports>` suffix, if written.
    public var portCountText: String?
    /// `UDP/TLS/RTP/SAVPF`, `RTP/AVP`, `RTP/SAVP`, ...
    public var proto: String
    /// The format list: payload type numbers for RTP protocols, tokens otherwise.
    public var formats: [String]
    public var information: String?
    public var connections: [Connection]
    public var bandwidths: [Bandwidth]
    /// `k=` (obsolete). A secret: never logged.
    public var encryptionKey: String?
    public var attributes: [Attribute]
    /// The line types after `m=` (`i`, `c`, `b`, `k`, `a`) in written order, when that order is
    /// not RFC 8866's; the serializer follows it so the section comes back as it was.
    var lineOrder: [UInt8]?

    public init(
        kind: String, port: Int, proto: String, formats: [String],
        information: String? = nil, connections: [Connection] = [], bandwidths: [Bandwidth] = [],
        encryptionKey: String? = nil, attributes: [Attribute] = []
    ) {
        self.kind = kind
        self.portText = String(port)
        self.portCountText = nil
        self.proto = proto
        self.formats = formats
        self.information = information
        self.connections = connections
        self.bandwidths = bandwidths
        self.encryptionKey = encryptionKey
        self.attributes = attributes
    }

    init(kind: String, portText: String, portCountText: String?, proto: String, formats: [String]) {
        self.kind = kind
        self.portText = portText
        self.portCountText = portCountText
        self.proto = proto
        self.formats = formats
        self.information = nil
        self.connections = []
        self.bandwidths = []
        self.encryptionKey = nil
        self.attributes = []
    }

    public var port: Int {
        get { Int(portText) ?? 0 }
        set { portText = String(newValue) }
    }

    /// A port of zero rejects (or disables) the section (RFC 3264 §6).
    public var isRejected: Bool { port == 0 }

    /// Whether the format list holds RTP payload type numbers.
    public var isRTP: Bool { proto.uppercased().contains("RTP/") }
}
