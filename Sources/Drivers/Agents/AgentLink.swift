import Signaling
import Parley

/// How an agent session reaches its program: a WebSocket, or a process's standard streams.
/// The bridge is the link's feed either way; the link only carries bytes.
protocol AgentLink: Sendable {
    /// Waits until the link is closed, by either side or by failure, and says why; `onOpen` runs
    /// once the link is up (a platform dialect's bot says no hello).
    func closed(onOpen: @escaping @Sendable () async -> Void) async -> String
    /// Closes once what waits for the program (the `end` event) has been sent.
    func close(reason: String)
}

/// The program behind a WebSocket (`--agent ws://…`), through the process's one
/// libwebsockets service thread: the bridge is the socket's feed (WebSocketFeed.swift).
struct WebSocketAgentLink: AgentLink {
    private let connection: WebSocketConnection

    init(url: WebSocketURL, options: WebSocketOptions, bridge: AgentBridge) {
        connection = WebSocketConnection(url: url, options: options, feed: bridge)
    }

    func closed(onOpen: @escaping @Sendable () async -> Void) async -> String {
        for await event in connection.events {
            switch event {
            case .opened: await onOpen()
            case .closed(let closure): return closure.description
            default: break
            }
        }
        return "closed"
    }

    func close(reason: String) {
        connection.close(code: WebSocketCloseCode.normal, reason: reason)
    }
}
