/// How one ICE agent gathers and checks.
public struct ICEAgentConfiguration: Sendable {
    public enum Role: Sendable, Equatable {
        case controlling
        case controlled
    }

    public enum Mode: Sendable, Equatable {
        /// Candidates leave one by one as they are found, then `.gatheringComplete`.
        case trickle
        /// Candidates leave all at once when gathering ends or when `collectionTimeout` passes,
        /// whichever is first (Kandy's ICECollectionTimeout).
        case vanilla(collectionTimeout: Duration)
    }

    public var role: Role
    public var servers: [ICEServer]
    public var mode: Mode
    /// Offer only relay candidates (force TURN).
    public var relayOnly: Bool
    /// Interface names to gather on; empty means every interface but loopback.
    public var allowedInterfaces: [String]
    public var ipv6: Bool
    /// 1 when rtcp-mux is negotiated, 2 otherwise.
    public var componentCount: Int
    /// Trust anchors (PEM file) for `turns:` servers; nil means the system's.
    public var tlsCertificateAuthorityFile: String?
    /// How long the selected pair may stay silent (nothing at all received on it) before the
    /// agent reports `.disconnected`; it reports `.connected`/`.completed` again when packets
    /// return. While the pair is quiet the agent sends the peer a consent check every 500 ms,
    /// so an idle but working path is never quiet for long. At least 1 s; nil: never reported.
    public var disconnectTimeout: Duration?
    /// How long the selected pair may stay silent before consent expires (RFC 7675: 30 s): the
    /// agent then stops sending and reports `.failed(.consentLost)`; only a restart recovers.
    /// At least 2 s and longer than `disconnectTimeout`.
    public var consentTimeout: Duration

    public static let defaultDisconnectTimeout: Duration = .seconds(3)
    public static let defaultConsentTimeout: Duration = .seconds(30)

    public init(
        role: Role,
        servers: [ICEServer] = [],
        mode: Mode = .trickle,
        relayOnly: Bool = false,
        allowedInterfaces: [String] = [],
        ipv6: Bool = true,
        componentCount: Int = 1,
        tlsCertificateAuthorityFile: String? = nil,
        disconnectTimeout: Duration? = ICEAgentConfiguration.defaultDisconnectTimeout,
        consentTimeout: Duration = ICEAgentConfiguration.defaultConsentTimeout
    ) {
        self.role = role
        self.servers = servers
        self.mode = mode
        self.relayOnly = relayOnly
        self.allowedInterfaces = allowedInterfaces
        self.ipv6 = ipv6
        self.componentCount = componentCount
        self.tlsCertificateAuthorityFile = tlsCertificateAuthorityFile
        self.disconnectTimeout = disconnectTimeout
        self.consentTimeout = consentTimeout
    }

    func validated() throws(ICEConfigurationError) -> ICEAgentConfiguration {
        guard componentCount == 1 || componentCount == 2 else { throw .invalidComponentCount(componentCount) }
        if let disconnectTimeout, disconnectTimeout < .seconds(1) { throw .invalidDisconnectTimeout(disconnectTimeout) }
        guard consentTimeout >= .seconds(2), consentTimeout > disconnectTimeout ?? .zero else { throw .invalidConsentTimeout(consentTimeout) }
        for server in servers where server.kind == .turn {
            guard server.username?.isEmpty == false, server.credential?.isEmpty == false else {
                throw .missingCredentials(url: server.description)
            }
        }
        return self
    }
}
