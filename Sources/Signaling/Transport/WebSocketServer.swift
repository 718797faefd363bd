import CWebSockets

/// A connection accepted by a `WebSocketServer`.
public struct WebSocketPeer: Sendable, Hashable, CustomStringConvertible {
    public let id: Int
    /// The remote address, as libwebsockets reports it.
    public let address: String
    let budget: SendBudget

    public static func == (lhs: WebSocketPeer, rhs: WebSocketPeer) -> Bool { lhs.id == rhs.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
    public var description: String { "peer \(id) (\(address))" }
}

public enum WebSocketServerEvent: Sendable {
    case accepted(WebSocketPeer)
    /// Any event of one accepted connection; `.closed` is its last.
    case peer(Int, WebSocketEvent)
}

/// A listening WebSocket server on the process's service thread.
public final class WebSocketServer: Sendable {
    public let port: Int
    public let events: AsyncStream<WebSocketServerEvent>
    private let id: Int
    private let maximumQueuedBytes: Int

    private init(id: Int, port: Int, events: AsyncStream<WebSocketServerEvent>, maximumQueuedBytes: Int) {
        self.id = id
        self.port = port
        self.events = events
        self.maximumQueuedBytes = maximumQueuedBytes
    }

    public static func listen(_ options: WebSocketServerOptions) async throws(WebSocketError) -> WebSocketServer {
        let service = WebSocketService.shared
        let id = service.makeIdentifier()
        let (stream, continuation) = AsyncStream.makeStream(of: WebSocketServerEvent.self)
        let result: Result<Int, WebSocketError> = await withCheckedContinuation { reply in
            service.submit(.listen(ListenRequest(id: id, options: options, sink: { continuation.yield($0) }, reply: { reply.resume(returning: $0) })))
        }
        switch result {
        case .success(let port):
            return WebSocketServer(id: id, port: port, events: stream, maximumQueuedBytes: options.maximumQueuedBytes)
        case .failure(let error):
            continuation.finish()
            throw error
        }
    }

    public func send(_ text: String, to peer: WebSocketPeer) throws(WebSocketError) {
        let message = outgoingFrame(text)
        let payload = message.count - Int(parley_lws_pre())
        guard peer.budget.reserve(payload, limit: maximumQueuedBytes) else { throw .outgoingQueueFull(bytes: peer.budget.waiting) }
        WebSocketService.shared.submit(.send(socket: peer.id, message: message))
    }

    public func close(_ peer: WebSocketPeer, code: UInt16 = WebSocketCloseCode.normal, reason: String = "") {
        WebSocketService.shared.submit(.close(socket: peer.id, code: code, reason: reason))
    }

    /// Closes every connection and the listening socket.
    public func stop() {
        WebSocketService.shared.submit(.stopListening(listener: id))
    }
}
