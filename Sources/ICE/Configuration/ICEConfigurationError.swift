/// A bad ICE server URL or agent setting. Messages name the URL without its credential.
public enum ICEConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    case unsupportedScheme(url: String)
    case missingHost(url: String)
    case invalidHost(url: String)
    case invalidPort(url: String)
    case unsupportedQuery(url: String)
    case unsupportedTransport(url: String, transport: String)
    case missingCredentials(url: String)
    case stunsNotSupported(url: String)
    case invalidComponentCount(Int)
    case invalidDisconnectTimeout(Duration)
    case invalidConsentTimeout(Duration)

    public var description: String {
        switch self {
        case .unsupportedScheme(let url): "ICE server URL \(url) must start with stun:, turn: or turns:"
        case .missingHost(let url): "ICE server URL \(url) has no host"
        case .invalidHost(let url): "ICE server URL \(url) has an invalid host"
        case .invalidPort(let url): "ICE server URL \(url) has an invalid port (1-65535)"
        case .unsupportedQuery(let url): "ICE server URL \(url) may only carry ?transport=udp|tcp, and only for turn:"
        case .unsupportedTransport(let url, let transport): "ICE server URL \(url) asks for transport \(transport); use udp or tcp"
        case .missingCredentials(let url): "TURN server \(url) needs a username and a credential"
        case .stunsNotSupported(let url): "ICE server URL \(url): stuns: (STUN over TLS) is not supported; use stun: or turns:"
        case .invalidComponentCount(let count): "an ICE stream has 1 component (rtcp-mux) or 2, not \(count)"
        case .invalidDisconnectTimeout(let timeout): "the ICE disconnect timeout must be at least 1 s (the agent probes a quiet path every 500 ms), not \(timeout)"
        case .invalidConsentTimeout(let timeout): "the ICE consent timeout must be at least 2 s and longer than the disconnect timeout, not \(timeout)"
        }
    }
}
