/// A signalling failure, with a stable code and a message a person can act on.
/// Messages never contain passwords, tokens or SDP keys.
package enum SignalingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// -32000: a method other than login was sent before logging in.
    case authenticationRequired(message: String)
    /// -32001: wrong login, password or token; the session id is in use elsewhere.
    case authenticationFailed(message: String)
    /// -32002: a call-level error (call does not exist, codec or media error, call error with a cause).
    case sessionError(message: String, cause: String?, causeCode: Int?)
    /// -32003: the gateway registration expired (EXPIRED).
    case gatewayTimeout(message: String)
    /// -32004: the gateway registration failed (FAILED).
    case gatewayFailed(message: String)
    /// -32600 / -32601 / -32602 and any other JSON-RPC error code.
    case serverError(code: Int, message: String, method: String?)
    /// No REGED or REGISTER after the retries (NOREG, UNREGED, TRYING…); `lastState` is what the server said last, if anything.
    case gatewayNotRegistered(lastState: String?)
    case requestTimedOut(method: String, after: Duration)
    case malformedFrame(String)
    case unexpectedMessage(String)
    case socket(WebSocketError)
    /// A SIP flow could not open or was lost (UDP, TCP or WebSocket; docs/sip.md, "Transports").
    case sipTransport(SIPTransportError)
    case socketClosed(WebSocketClosure)
    case keepaliveTimedOut(after: Duration)
    case notReady(String)
    case punted
    case invalidConfiguration(String)
    /// Janus answered with an error; `code` is Janus' own (e.g. 458 no such session).
    case janus(code: Int, reason: String)
    case janusSessionLost(String)

    /// A stable identifier for scripts and `--json` output.
    package var code: String {
        switch self {
        case .authenticationRequired: "authentication-required"
        case .authenticationFailed: "authentication-failed"
        case .sessionError: "session-error"
        case .gatewayTimeout: "gateway-timeout"
        case .gatewayFailed: "gateway-failed"
        case .serverError: "server-error"
        case .gatewayNotRegistered: "gateway-not-registered"
        case .requestTimedOut: "request-timeout"
        case .malformedFrame: "malformed-frame"
        case .unexpectedMessage: "unexpected-message"
        case .socket, .sipTransport: "socket-error"
        case .socketClosed: "socket-closed"
        case .keepaliveTimedOut: "keepalive-timeout"
        case .notReady: "not-ready"
        case .punted: "punted"
        case .invalidConfiguration: "invalid-configuration"
        case .janus: "janus-error"
        case .janusSessionLost: "janus-session-lost"
        }
    }

    /// The JSON-RPC code the server sent (or docs/verto-protocol.md §9.1 assigns), when there is one.
    package var rpcCode: Int? {
        switch self {
        case .authenticationRequired: -32000
        case .authenticationFailed: -32001
        case .sessionError: -32002
        case .gatewayTimeout, .gatewayNotRegistered: -32003
        case .gatewayFailed: -32004
        case .serverError(let code, _, _): code
        default: nil
        }
    }

    package var description: String {
        switch self {
        case .authenticationRequired(let message): "the server requires logging in first (-32000: \(message))"
        case .authenticationFailed(let message): "login failed (-32001: \(message)); check the login and password or token"
        case .sessionError(let message, let cause, let causeCode):
            "the server refused the call request (-32002: \(message)\(cause.map { ", cause \($0)" } ?? "")\(causeCode.map { " \($0)" } ?? ""))"
        case .gatewayTimeout(let message): "gateway registration timed out (-32003: \(message))"
        case .gatewayFailed(let message): "gateway registration failed (-32004: \(message))"
        case .serverError(let code, let message, let method):
            "the server answered\(method.map { " \($0)" } ?? "") with error \(code): \(message)"
        case .gatewayNotRegistered(let state):
            "the gateway did not register\(state.map { " (last state \($0))" } ?? " (no answer to gatewayState)")"
        case .requestTimedOut(let method, let timeout): "no answer to \(method) within \(WebSocketError.format(timeout)) s"
        case .malformedFrame(let reason): "ignored a malformed frame from the server: \(reason)"
        case .unexpectedMessage(let reason): "ignored an unexpected message: \(reason)"
        case .socket(let error): error.description
        case .sipTransport(let error): error.description
        case .socketClosed(let closure): "the signalling socket \(closure)"
        case .keepaliveTimedOut(let timeout): "the server did not answer a keepalive ping within \(WebSocketError.format(timeout)) s"
        case .notReady(let what): "not ready: \(what)"
        case .punted: "the server dropped this connection because another one logged in with the same session"
        case .invalidConfiguration(let reason): "invalid signalling configuration: \(reason)"
        case .janus(let code, let reason): "Janus error \(code): \(reason)"
        case .janusSessionLost(let reason): "the Janus session was lost: \(reason)"
        }
    }

    /// Maps a JSON-RPC error object from a Verto server to its typed case (docs/verto-protocol.md §9.1).
    package static func fromServer(_ error: JSONRPCErrorObject, method: String?) -> SignalingError {
        switch error.code {
        case -32000: .authenticationRequired(message: error.message)
        case -32001: .authenticationFailed(message: error.message)
        case -32002: .sessionError(message: error.message, cause: error.details["cause"]?.stringValue, causeCode: error.details["causeCode"]?.intValue)
        case -32003: .gatewayTimeout(message: error.message)
        case -32004: .gatewayFailed(message: error.message)
        default: .serverError(code: error.code, message: error.message, method: method)
        }
    }
}
