import CWebSockets

/// A connection accepted by a `WebSocketServer`.
package struct WebSocketPeer: Sendable, Hashable, CustomStringConvertible {
    package let id: Int
    /// The remote address, as libwebsockets reports it.
    package let address: String
    let budget: SendBudget

    package static func == (lhs: WebSocketPeer, rhs: WebSocketPeer) -> Bool { lhs.id == rhs.id }
    package func hash(into hasher: inout Hasher) { hasher.combine(id) }
    package var description: String { "peer \(id) (\(address))" }
}

package enum WebSocketServerEvent: Sendable {
    case accepted(WebSocketPeer)
    /// Any event of one accepted connection; `.closed` is its last.
    case peer(Int, WebSocketEvent)
}

/// A listening WebSocket server on the process's service thread.
package final class WebSocketServer: Sendable {
    package let port: Int
    /// The numeric addresses listened on (one for an address, each of a name's).
    package let addresses: [String]
    package let events: AsyncStream<WebSocketServerEvent>
    private let id: Int
    private let maximumQueuedBytes: Int

    private init(id: Int, listening: ListeningInfo, events: AsyncStream<WebSocketServerEvent>, maximumQueuedBytes: Int) {
        self.id = id
        self.port = listening.port
        self.addresses = listening.addresses
        self.events = events
        self.maximumQueuedBytes = maximumQueuedBytes
    }

    /// Listens on every address `options.bindAddress` resolves to (loopback when nil), or
    /// throws `listenFailed` saying which address cannot be bound and why.
    package static func listen(_ options: WebSocketServerOptions) async throws(WebSocketError) -> WebSocketServer {
        let service = WebSocketService.shared
        let id = service.makeIdentifier()
        let (stream, continuation) = AsyncStream.makeStream(of: WebSocketServerEvent.self)
        let result: Result<ListeningInfo, WebSocketError> = await withCheckedContinuation { reply in
            service.submit(.listen(ListenRequest(id: id, options: options, sink: { continuation.yield($0) }, reply: { reply.resume(returning: $0) })))
        }
        switch result {
        case .success(let listening):
            return WebSocketServer(id: id, listening: listening, events: stream, maximumQueuedBytes: options.maximumQueuedBytes)
        case .failure(let error):
            continuation.finish()
            throw error
        }
    }

    package func send(_ text: String, to peer: WebSocketPeer) throws(WebSocketError) {
        let message = outgoingFrame(text)
        let payload = message.count - Int(parley_lws_pre())
        guard peer.budget.reserve(payload, limit: maximumQueuedBytes) else { throw .outgoingQueueFull(bytes: peer.budget.waiting) }
        WebSocketService.shared.submit(.send(socket: peer.id, message: message))
    }

    /// Bytes sent to `peer` that have not reached its socket yet.
    package func unsentBytes(to peer: WebSocketPeer) -> Int { peer.budget.waiting }

    package func close(_ peer: WebSocketPeer, code: UInt16 = WebSocketCloseCode.normal, reason: String = "") {
        WebSocketService.shared.submit(.close(socket: peer.id, code: code, reason: reason))
    }

    /// Closes every connection and the listening socket.
    package func stop() {
        WebSocketService.shared.submit(.stopListening(listener: id))
    }
}
