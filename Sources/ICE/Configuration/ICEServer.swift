/// A STUN or TURN server from an RFC 7064 (`stun:`, `stuns:`) or RFC 7065 (`turn:`, `turns:`) URL.
public struct ICEServer: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        case stun
        case turn
    }

    /// How the client reaches a TURN server; the relayed traffic itself is always UDP.
    public enum TURNTransport: String, Sendable, Equatable {
        case udp
        case tcp
        case tls
    }

    public let kind: Kind
    /// A host name, an IPv4 address or an IPv6 address (without brackets).
    public let host: String
    public let port: UInt16
    /// For `.turn` only; STUN binding requests are sent over UDP.
    public let transport: TURNTransport
    public let username: String?
    /// A secret: never part of `description` or any error.
    public let credential: String?

    public static let defaultPort: UInt16 = 3478
    public static let defaultTLSPort: UInt16 = 5349

    public init(kind: Kind, host: String, port: UInt16, transport: TURNTransport = .udp, username: String? = nil, credential: String? = nil) {
        self.kind = kind
        self.host = host
        self.port = port
        self.transport = kind == .stun ? .udp : transport
        self.username = username
        self.credential = credential
    }

    /// Parses `url` and attaches the credentials; TURN servers require both.
    public init(url: String, username: String? = nil, credential: String? = nil) throws(ICEConfigurationError) {
        self = try ICEServerURLParser.parse(url, username: username, credential: credential)
    }

    /// The URL again, without credentials: safe to log.
    public var description: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        switch (kind, transport) {
        case (.stun, _): return "stun:\(hostPart):\(port)"
        case (.turn, .tls): return "turns:\(hostPart):\(port)"
        case (.turn, let transport): return "turn:\(hostPart):\(port)?transport=\(transport.rawValue)"
        }
    }
}
