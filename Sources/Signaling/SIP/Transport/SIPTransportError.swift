/// Why a SIP flow could not open or ended, in words a person can act on. Never quotes a message
/// or a URL's user part: either may carry a credential.
package enum SIPTransportError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidAddress(String, reason: String)
    case cannotResolve(host: String, reason: String)
    case connectFailed(String)
    case connectTimedOut(after: Duration)
    case tlsFailed(String)
    /// Our side closed the flow, or it closed with nothing left to say (a clean end).
    case closed
    /// The peer closed the flow, or the network lost it.
    case lost(String)
    /// A stream's framing is lost (a message over a limit, a head without Content-Length); the
    /// flow closes, as nothing after it can be cut reliably.
    case framingLost(SIPParseError)
    case outgoingQueueFull

    package var description: String {
        switch self {
        case .invalidAddress(let address, let reason): "invalid SIP server \(address): \(reason)"
        case .cannotResolve(let host, let reason): "cannot resolve the SIP server \(host): \(reason)"
        case .connectFailed(let reason): "could not reach the SIP server: \(reason)"
        case .connectTimedOut(let timeout): "the SIP server did not accept the connection within \(WebSocketError.format(timeout)) s"
        case .tlsFailed(let reason): "the TLS handshake with the SIP server failed: \(reason)"
        case .closed: "the SIP flow was closed"
        case .lost(let reason): "the SIP flow was lost: \(reason)"
        case .framingLost(let error): "the SIP stream was closed after an unreadable message: \(error)"
        case .outgoingQueueFull: "the SIP flow's outgoing queue is full"
        }
    }

    init(_ error: WebSocketError) {
        switch error {
        case .invalidURL(let url, let reason): self = .invalidAddress(url, reason: reason)
        case .connectFailed(let reason): self = .connectFailed(reason)
        case .connectTimedOut(let timeout): self = .connectTimedOut(after: timeout)
        case .tlsFailed(let reason): self = .tlsFailed(reason)
        case .listenFailed, .notOpen: self = .lost(error.description)
        case .outgoingQueueFull: self = .outgoingQueueFull
        }
    }
}
