/// The transports a SIP flow runs over (RFC 3261 §18, RFC 7118), each with its default port and
/// the name its Via header carries.
package enum SIPTransport: String, Sendable, Equatable, CaseIterable {
    case udp, tcp, tls, ws, wss

    package var defaultPort: Int {
        switch self {
        case .udp, .tcp: 5060
        case .tls: 5061
        case .ws: 80
        case .wss: 443
        }
    }

    /// Reliable transports run no retransmission timers (RFC 3261 §17).
    package var isReliable: Bool { self != .udp }

    package var isSecure: Bool { self == .tls || self == .wss }

    /// As a Via sent-protocol names it: `SIP/2.0/UDP`, `SIP/2.0/WSS`.
    package var viaName: String { rawValue.uppercased() }
}
