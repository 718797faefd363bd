import Signaling
import Parley

/// Where a call's agent program is (docs/agents.md): a WebSocket it serves, or a command Parley
/// starts per call and speaks to over standard input and output.
public enum AgentEndpoint: Sendable, Equatable, CustomStringConvertible {
    /// A WebSocket server; `dialect` says whose protocol it speaks (Parley's, or a platform's).
    case webSocket(WebSocketURL, WebSocketOptions, AgentDialectOptions = .parley)
    case exec(command: String)

    public var description: String {
        switch self {
        case .webSocket(let url, _, let options): options.dialect == .parley ? url.description : "\(url) (\(options.dialect.rawValue))"
        case .exec(let command): "the command \"\(command.prefix(60))\""
        }
    }

    public static func == (lhs: AgentEndpoint, rhs: AgentEndpoint) -> Bool { lhs.description == rhs.description }
}

/// A program's answer to an incoming call it was offered.
public enum AgentDecision: Sendable, Equatable {
    case answer
    case reject(cause: String?)
    /// The program went away or said nothing in time: the call is refused with this error.
    case failed(ParleyError)
    /// The caller gave up (or the call ended otherwise) before the program decided.
    case callEnded(TerminationReason)
}
