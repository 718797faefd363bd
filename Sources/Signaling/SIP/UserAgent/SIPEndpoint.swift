/// One SIP flow with its transaction layer (RFC 3261 §17) and the clock that drives it: the
/// user agent's side of the wire, shared by its registration and its calls. Requests sent here
/// are retransmitted and timed out by the layer; `request` returns the final response.
///
/// The flow's events are read by one task and the layer's timers by one more; both end with
/// the flow. Nothing here runs per packet of media.
package actor SIPEndpoint {
    package let server: SIPServerAddress
    private let flow: SIPFlow
    private var layer: SIPTransactionLayer
    private let clock = ElapsedClock()
    /// Our address as the flow's socket names it; for a WebSocket, a `.invalid` name (RFC 7118 §5).
    package private(set) var localHost: String
    package private(set) var localPort: Int?
    private var waiting: [SIPTransactionKey: CheckedContinuation<SIPMessage, any Error>] = [:]
    private var closedWith: SIPTransportError?
    private var reader: Task<Void, Never>?
    private var ticker: Task<Void, Never>?
    private var tickDeadline: Double?

    package init(server: SIPServerAddress, options: SIPFlowOptions = SIPFlowOptions(), timers: SIPTimers = SIPTimers()) {
        self.server = server
        flow = SIPFlow(server: server, options: options)
        layer = SIPTransactionLayer(reliable: server.transport.isReliable, timers: timers, limits: options.limits)
        localHost = RandomIdentifier.token(length: 12) + ".invalid"
    }

    /// Waits for the flow to open; throws why it could not.
    package func open() async throws(SIPTransportError) {
        var events = flow.events.makeAsyncIterator()
        while let event = await events.next() {
            switch event {
            case .opened(let address, let port):
                if let address { localHost = address }
                localPort = port
                let remaining = flow.events
                // Unstructured: kept in `reader`; it ends with the flow's events, which close() ends.
                reader = Task { [weak self] in
                    for await event in remaining { await self?.handle(event) }
                }
                return
            case .closed(let error):
                closedWith = error ?? .closed
                throw closedWith ?? .closed
            case .message, .malformed, .keepAlivePong:
                continue
            }
        }
        throw .closed
    }

    /// The Via for a new client transaction: our sent-by, `rport` (RFC 3581) and a fresh branch.
    package func newVia() -> SIPVia {
        SIPVia(transport: server.transport.viaName, host: localHost, port: localPort,
               branch: SIPVia.branchCookie + RandomIdentifier.token(length: 16))
    }

    /// A Contact URI that reaches this flow: our address and transport (`.invalid` on WebSocket).
    package func contactURI(user: String) -> String {
        var uri = SIPURI(user: user, host: localHost.contains(":") ? "[\(localHost)]" : localHost, port: localPort)
        if server.transport != .udp { uri.parameters.append("transport", server.transport.rawValue) }
        return uri.serialized
    }

    /// Sends `request` in a client transaction and returns its final response (provisional ones
    /// are passed over). Throws `SIPRequestFailure.timedOut` after Timer B or F, `.transport` when
    /// the flow ends first.
    package func request(_ request: SIPMessage) async throws -> SIPMessage {
        if let closedWith { throw SIPRequestFailure.transport(closedWith) }
        let key: SIPTransactionKey
        do {
            key = try layer.send(request, now: clock.seconds)
        } catch {
            throw SIPRequestFailure.unsendable(error)
        }
        return try await withCheckedThrowingContinuation { continuation in
            waiting[key] = continuation
            flush()
        }
    }

    package func close() {
        flow.close()
        ticker?.cancel()
    }

    private func handle(_ event: SIPFlowEvent) {
        switch event {
        case .message(let message):
            layer.received(message, now: clock.seconds)
            flush()
        case .closed(let error):
            let ended = error ?? .closed
            closedWith = ended
            ticker?.cancel()
            for continuation in waiting.values { continuation.resume(throwing: SIPRequestFailure.transport(ended)) }
            waiting.removeAll()
        case .opened, .malformed, .keepAlivePong:
            break
        }
    }

    private func tick() {
        tickDeadline = nil
        layer.tick(now: clock.seconds)
        flush()
    }

    /// Puts the layer's messages on the wire, hands its events on, and sets the next tick.
    /// Answering a request adds output, taken on the next round (two at most).
    private func flush() {
        for _ in 0..<2 {
            let (messages, events) = layer.takeOutput()
            if messages.isEmpty, events.isEmpty { break }
            for message in messages { try? flow.send(message) }
            for event in events {
                switch event {
                case .response(let key, let response):
                    guard let status = response.status, status >= 200, let continuation = waiting.removeValue(forKey: key) else { continue }
                    continuation.resume(returning: response)
                case .timedOut(let key):
                    waiting.removeValue(forKey: key)?.resume(throwing: SIPRequestFailure.timedOut(after: .milliseconds(Int(layer.timers.transactionTimeout * 1000))))
                case .request(let key, let request):
                    answer(request, key: key)
                case .ackForSuccess, .strayResponse, .malformed:
                    continue
                }
            }
        }
        schedule()
    }

    /// Every request from the server is answered, so no server transaction waits for its timer
    /// with nothing to say: OPTIONS (a registrar's or proxy's liveness ping) with 200, anything
    /// else with 501 until calls are taken here (docs/sip.md, "Not yet").
    private func answer(_ request: SIPMessage, key: SIPTransactionKey) {
        let tag = RandomIdentifier.token(length: 10)
        let response: SIPMessage = request.method == "OPTIONS"
            ? .response(to: request, status: 200, reason: "OK", toTag: tag, headers: [SIPHeader(.allow, Self.allowed)])
            : .response(to: request, status: 501, reason: "Not Implemented", toTag: tag, headers: [SIPHeader(.allow, Self.allowed)])
        try? layer.respond(to: key, with: response, now: clock.seconds)
    }

    static let allowed = "OPTIONS"


    private func schedule() {
        guard let deadline = layer.nextDeadline else { return }
        if let tickDeadline, tickDeadline <= deadline { return }
        tickDeadline = deadline
        ticker?.cancel()
        let delay = max(0, deadline - clock.seconds)
        // Unstructured: kept in `ticker`, replaced by the next deadline and cancelled by close().
        ticker = Task { [weak self] in
            guard (try? await Task.sleep(for: .milliseconds(Int((delay * 1000).rounded(.up))))) != nil else { return }
            await self?.tick()
        }
    }
}

/// Why a request got no final response.
package enum SIPRequestFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// No final response before Timer B (INVITE) or F (others): 64·T1, 32 s by default.
    case timedOut(after: Duration)
    case transport(SIPTransportError)
    case unsendable(SIPTransactionError)

    package var description: String {
        switch self {
        case .timedOut(let timeout): "the SIP server sent no final response within \(WebSocketError.format(timeout)) s"
        case .transport(let error): error.description
        case .unsendable(let error): error.description
        }
    }
}
