/// Why ICE failed or a server could not be used. Never carries a password.
package enum ICEError: Error, Sendable, Equatable, CustomStringConvertible {
    case configuration(ICEConfigurationError)
    /// The TURN server refused our long-term credentials (401 after authenticating).
    case turnAuthenticationFailed(server: String)
    /// The TURN server answered but gave no allocation, or did not answer.
    case turnAllocationFailed(server: String, reason: String)
    case serverUnresolvable(server: String)
    case tlsTunnelFailed(server: String, reason: String)
    /// Gathering ended with no candidate to offer.
    case gatheringFailed(reason: String)
    /// Connectivity checks ended without a working pair.
    case connectivityFailed
    /// Nothing came back on the selected pair for this long: consent expired (RFC 7675).
    case consentLost(after: Duration)
    case invalidRemoteCandidate(reason: String)
    /// A remote `.local` (mDNS) candidate the system could not resolve; it is skipped (a warning).
    case multicastDNSUnresolvable(host: String)
    case libniceFailure(String)
    /// The process is at its `RLIMIT_NOFILE` (`FileDescriptorLimit`): descriptors open (when
    /// they could be counted) and the soft limit.
    case outOfFileDescriptors(open: Int?, limit: Int)
    case closed

    package var description: String {
        switch self {
        case .configuration(let error): error.description
        case .turnAuthenticationFailed(let server): "TURN authentication failed at \(server): the server rejected the username or credential"
        case .turnAllocationFailed(let server, let reason): "TURN allocation failed at \(server): \(reason)"
        case .serverUnresolvable(let server): "could not resolve the address of ICE server \(server)"
        case .tlsTunnelFailed(let server, let reason): "TLS to TURN server \(server) failed: \(reason)"
        case .gatheringFailed(let reason): "ICE gathering failed: \(reason)"
        case .connectivityFailed: "ICE connectivity checks failed: no candidate pair works"
        case .consentLost(let after): "ICE path lost: nothing received on the selected pair for \(after) (consent expired)"
        case .invalidRemoteCandidate(let reason): "invalid remote ICE candidate: \(reason)"
        case .multicastDNSUnresolvable(let host): "remote ICE candidate \(host) (mDNS) cannot be resolved here; skipped"
        case .libniceFailure(let what): "libnice: \(what)"
        case .outOfFileDescriptors(let open, let limit):
            "out of file descriptors (\(open.map { "\($0) open, " } ?? "")limit \(limit)): raise ulimit -n (and its hard limit, ulimit -Hn)"
        case .closed: "the ICE agent is closed"
        }
    }

    package var code: String {
        switch self {
        case .configuration: "ice-configuration"
        case .turnAuthenticationFailed: "turn-authentication"
        case .turnAllocationFailed: "turn-allocation"
        case .serverUnresolvable: "ice-server-unresolvable"
        case .tlsTunnelFailed: "turn-tls"
        case .gatheringFailed: "ice-gathering"
        case .connectivityFailed: "ice-failed"
        case .consentLost: "ice-consent-lost"
        case .invalidRemoteCandidate: "ice-remote-candidate"
        case .multicastDNSUnresolvable: "ice-mdns-unresolvable"
        case .libniceFailure: "libnice"
        case .outOfFileDescriptors: "out-of-file-descriptors"
        case .closed: "ice-closed"
        }
    }
}
