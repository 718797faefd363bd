import CWebSockets

/// A client WebSocket. Events (open, text messages, refusals, the close) arrive in order on
/// `events`; `send` and `close` may be called from any thread and never block.
package final class WebSocketConnection: Sendable {
    package let url: WebSocketURL
    package let events: AsyncStream<WebSocketEvent>
    private let id: Int
    private let budget: SendBudget
    private let maximumQueuedBytes: Int

    /// Starts connecting at once; the outcome is the first event: `.opened` or `.closed` with an error.
    /// With a `feed`, received messages go to it on the service thread, not to `events`
    /// (WebSocketFeed.swift); `events` still reports the open, refusals and the close.
    package init(url: WebSocketURL, options: WebSocketOptions = WebSocketOptions(), feed: (any WebSocketFeed)? = nil) {
        let (stream, continuation) = AsyncStream.makeStream(of: WebSocketEvent.self)
        let service = WebSocketService.shared
        self.url = url
        self.events = stream
        self.id = service.makeIdentifier()
        self.budget = SendBudget()
        self.maximumQueuedBytes = options.maximumQueuedBytes
        guard url.port != 0 else {
            continuation.yield(.closed(WebSocketClosure(code: nil, reason: "", initiatedByPeer: false,
                                                        error: .invalidURL(url.description, reason: "a client needs a real port, not 0"))))
            continuation.finish()
            return
        }
        let limits = SocketLimits(maximumMessageSize: options.maximumMessageSize, maximumQueuedBytes: options.maximumQueuedBytes)
        service.submit(.connect(ClientSocketRequest(id: id, url: url, options: options, limits: limits, budget: budget, feed: feed) { event in
            guard case .closed(let closure) = event else {
                continuation.yield(event)
                return
            }
            // The close is the last event, so explaining it later keeps the order.
            ConnectProbe.explain(closure, host: url.host, port: url.port) { explained in
                continuation.yield(.closed(explained))
                continuation.finish()
            }
        }))
    }

    /// Queues a text message (sent once the socket is open). Throws when the queue is full.
    package func send(_ text: String) throws(WebSocketError) {
        let message = outgoingFrame(text)
        let payload = message.count - Int(parley_lws_pre())
        guard budget.reserve(payload, limit: maximumQueuedBytes) else { throw .outgoingQueueFull(bytes: budget.waiting) }
        WebSocketService.shared.submit(.send(socket: id, message: message))
    }

    package func close(code: UInt16 = WebSocketCloseCode.normal, reason: String = "") {
        WebSocketService.shared.submit(.close(socket: id, code: code, reason: reason))
    }
}

/// A text message with the headroom libwebsockets writes its frame header into.
func outgoingFrame(_ text: String) -> [UInt8] {
    var message = [UInt8](repeating: 0, count: Int(parley_lws_pre()))
    message.append(contentsOf: text.utf8)
    return message
}
