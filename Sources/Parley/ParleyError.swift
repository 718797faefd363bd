import Signaling

/// Every failure the library reports, with a stable code and a message a person can act on.
/// Messages never contain passwords, tokens, TURN credentials, ICE passwords or SRTP keys.
public struct ParleyError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, CaseIterable {
        case configuration
        case socket
        case authenticationRequired = "authentication-required"
        case authenticationFailed = "authentication-failed"
        case gatewayTimeout = "gateway-timeout"
        case gatewayFailed = "gateway-failed"
        case gatewayNotRegistered = "gateway-not-registered"
        case sessionError = "session-error"
        case invalidRequest = "invalid-request"
        case methodNotFound = "method-not-found"
        case permissionDenied = "permission-denied"
        case serverError = "server-error"
        case requestTimeout = "request-timeout"
        case protocolViolation = "protocol-violation"
        case janus
        case sessionLost = "session-lost"
        case callNotFound = "call-not-found"
        /// The operation is not allowed in the call's current state (docs/calls.md).
        case callState = "call-state"
        case negotiation
        case noSupportedCodec = "no-supported-codec"
        case iceFailed = "ice-failed"
        case turnAuthentication = "turn-authentication"
        case dtlsFailed = "dtls-failed"
        case mediaTimeout = "media-timeout"
        case audio
        /// No sound server answered for the microphone, the speaker or `parley devices`.
        case audioUnavailable = "audio-unavailable"
        /// The network under a call went away and did not come back within the reconnect timeout.
        case reconnectTimeout = "reconnect-timeout"
        /// Reconnecting the signalling failed as many times as allowed, or the server no longer
        /// knows a call we kept.
        case reconnectFailed = "reconnect-failed"
        /// The process is at its limit of open files (`ulimit -n`): the call could not get a
        /// socket or a file (docs/cli.md, "File descriptors").
        case outOfFileDescriptors = "out-of-file-descriptors"
        /// The call's agent program (`--agent`, `--agent-exec`) could not be reached, refused
        /// the protocol, or went away (docs/agents.md).
        case agent
    }

    public let kind: Kind
    public let message: String
    /// The JSON-RPC (or Janus) error code the server sent, when there was one.
    public let serverCode: Int?

    public init(kind: Kind, message: String, serverCode: Int? = nil) {
        self.kind = kind
        self.message = message
        self.serverCode = serverCode
    }

    /// The code scripts match on, e.g. "authentication-failed".
    public var code: String { kind.rawValue }
    public var description: String { message }
}

extension ParleyError {
    /// Maps a signalling failure, keeping the server's own message and code (docs/verto-protocol.md §9.1).
    package init(_ error: SignalingError) {
        let message = error.description
        switch error {
        case .authenticationRequired: self.init(kind: .authenticationRequired, message: message, serverCode: -32000)
        case .authenticationFailed: self.init(kind: .authenticationFailed, message: message, serverCode: -32001)
        case .sessionError: self.init(kind: .sessionError, message: message, serverCode: -32002)
        case .gatewayTimeout: self.init(kind: .gatewayTimeout, message: message, serverCode: -32003)
        case .gatewayFailed: self.init(kind: .gatewayFailed, message: message, serverCode: -32004)
        case .gatewayNotRegistered: self.init(kind: .gatewayNotRegistered, message: message, serverCode: -32003)
        case .serverError(let code, _, _):
            let kind: Kind = switch code {
            case -32600, -32700: .invalidRequest
            case -32601: .methodNotFound
            case -32602: .permissionDenied
            default: .serverError
            }
            self.init(kind: kind, message: message, serverCode: code)
        case .requestTimedOut, .keepaliveTimedOut: self.init(kind: .requestTimeout, message: message)
        case .malformedFrame, .unexpectedMessage: self.init(kind: .protocolViolation, message: message)
        case .socket, .sipTransport, .socketClosed, .punted: self.init(kind: .socket, message: message)
        case .notReady, .invalidConfiguration: self.init(kind: .configuration, message: message)
        case .janus(let code, _): self.init(kind: .janus, message: message, serverCode: code)
        case .janusSessionLost: self.init(kind: .sessionLost, message: message)
        }
    }
}
