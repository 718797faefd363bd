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
    /// Who hears of each provisional response, by the client transaction it belongs to.
    private var progress: [SIPTransactionKey: @Sendable (SIPMessage) -> Void] = [:]
    /// Requests the server sends that the endpoint does not answer itself, in arrival order;
    /// read by the calls' owner once `acceptRequests` was called.
    package nonisolated let incoming: AsyncStream<SIPIncomingRequest>
    private let incomingSink: AsyncStream<SIPIncomingRequest>.Continuation
    private var takesRequests = false
    /// Our INVITEs and the ACKs of their 2xx, for a 2xx that comes again (SIPEndpoint+RepeatedSuccess.swift).
    var acceptedInvites: SIPAcceptedInvites
    /// Whether a request over UDP near the path MTU was reported (SIPEndpoint+Oversized.swift).
    var oversizedReported = false
    /// Registered with an RFC 5626 instance: our dialogs' Contacts say `ob` (`contactURI`).
    package private(set) var registeredOutbound = false

    package init(server: SIPServerAddress, options: SIPFlowOptions = SIPFlowOptions(), timers: SIPTimers = SIPTimers()) {
        self.server = server
        flow = SIPFlow(server: server, options: options)
        layer = SIPTransactionLayer(reliable: server.transport.isReliable, timers: timers, limits: options.limits)
        acceptedInvites = SIPAcceptedInvites(lifetime: timers.transactionTimeout)
        localHost = RandomIdentifier.token(length: 12) + ".invalid"
        (incoming, incomingSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(256))
    }

    /// From now on requests other than OPTIONS, and ACKs for our 2xx, go to `incoming` to be
    /// answered with `respond` instead of a 501.
    package func acceptRequests() {
        takesRequests = true
    }

    /// Answers a request `incoming` delivered, in its server transaction.
    package func respond(to key: SIPTransactionKey, with response: SIPMessage) throws(SIPTransactionError) {
        try layer.respond(to: key, with: response, now: clock.seconds)
        flush()
    }

    /// Why the flow ended, once it has: `.closed` when we closed it.
    package var closedError: SIPTransportError? { closedWith }

    /// The transaction layer's timers (T1, T2 and the 64·T1 they bound).
    package var timers: SIPTimers { layer.timers }

    /// The INVITE transaction a received CANCEL names (RFC 3261 §9.2).
    package func invite(cancelledBy key: SIPTransactionKey) -> SIPTransactionKey? {
        layer.invite(cancelledBy: key)
    }

    /// Sends a message outside any transaction: the ACK for a 2xx, which the dialog's owner
    /// sends itself (§13.2.2.4).
    package func sendOutsideTransaction(_ message: SIPMessage) {
        acceptedInvites.acknowledging(message)
        try? flow.send(message)
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
                // Unstructured: the flow's events are read for as long as it is open; its end finishes the stream.
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
    /// Once the flow is registered with an RFC 5626 instance it says `ob` too: we have no GRUU,
    /// and `ob` asks that a dialog's requests come back over this flow (RFC 5626).
    package func contactURI(user: String) -> String {
        var uri = flowURI(user: user)
        if registeredOutbound { uri.parameters.append("ob", nil) }
        return uri.serialized
    }

    /// The URI a REGISTER binds: `contactURI` without `ob`, which belongs in dialogs' Contacts.
    package func bindingURI(user: String) -> String {
        flowURI(user: user).serialized
    }

    private func flowURI(user: String) -> SIPURI {
        var uri = SIPURI(user: user, host: localHost.contains(":") ? "[\(localHost)]" : localHost, port: localPort)
        if server.transport != .udp { uri.parameters.append("transport", server.transport.rawValue) }
        return uri
    }

    /// The flow is registered with an RFC 5626 instance: from now on our Contacts say `ob`.
    package func registeredWithInstance() {
        registeredOutbound = true
    }

    /// Sends `request` in a client transaction and returns its final response (provisional ones
    /// are passed over). Throws `SIPRequestFailure.timedOut` after Timer B or F, `.transport` when
    /// the flow ends first.
    /// `onProvisional` hears each 1xx before the final response returns.
    package func request(_ request: SIPMessage, onProvisional: (@Sendable (SIPMessage) -> Void)? = nil) async throws -> SIPMessage {
        if let closedWith { throw SIPRequestFailure.transport(closedWith) }
        let key: SIPTransactionKey
        do {
            key = try layer.send(request, now: clock.seconds)
        } catch {
            throw SIPRequestFailure.unsendable(error)
        }
        if let onProvisional { progress[key] = onProvisional }
        acceptedInvites.sending(request, key: key)
        return try await withCheckedThrowingContinuation { continuation in
            waiting[key] = continuation
            flush()
        }
    }

    /// Gives up on a client transaction still awaiting its final response: an INVITE a CANCEL
    /// did not end within 64·T1 (§9.1). Its `request` throws `timedOut`.
    package func abandon(_ request: SIPMessage) {
        guard let key = try? SIPTransactionKey.client(request), let continuation = waiting.removeValue(forKey: key) else { return }
        layer.abandon(key)
        progress[key] = nil
        acceptedInvites.forget(key)
        continuation.resume(throwing: SIPRequestFailure.timedOut(after: .milliseconds(Int(layer.timers.transactionTimeout * 1000))))
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
            progress.removeAll()
            acceptedInvites.forgetAll()
            incomingSink.finish()
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
                    guard let status = response.status else { continue }
                    if status < 200 {
                        progress[key]?(response)
                        continue
                    }
                    progress[key] = nil
                    guard let continuation = waiting.removeValue(forKey: key) else {
                        answerRepeated(response, key: key)
                        continue
                    }
                    acceptedInvites.finished(response, key: key, now: clock.seconds)
                    continuation.resume(returning: response)
                case .timedOut(let key):
                    progress[key] = nil
                    acceptedInvites.forget(key)
                    waiting.removeValue(forKey: key)?.resume(throwing: SIPRequestFailure.timedOut(after: .milliseconds(Int(layer.timers.transactionTimeout * 1000))))
                case .request(let key, let request):
                    answer(request, key: key)
                case .ackForSuccess(let ack):
                    if takesRequests { incomingSink.yield(.ack(ack)) }
                case .strayResponse, .malformed:
                    continue
                }
            }
        }
        schedule()
    }

    /// Every request from the server is answered, so no server transaction waits for its timer
    /// with nothing to say: OPTIONS (a registrar's or proxy's liveness ping) with 200; the rest
    /// go to `incoming` once a call owner takes them, and are answered 501 until then.
    private func answer(_ request: SIPMessage, key: SIPTransactionKey) {
        if takesRequests, request.method != "OPTIONS" {
            incomingSink.yield(.request(key, request))
            return
        }
        let tag = RandomIdentifier.token(length: 10)
        let allow = SIPHeader(.allow, takesRequests ? Self.allowedInCalls : Self.allowed)
        let response: SIPMessage = request.method == "OPTIONS"
            ? .response(to: request, status: 200, reason: "OK", toTag: tag, headers: [allow])
            : .response(to: request, status: 501, reason: "Not Implemented", toTag: tag, headers: [allow])
        try? layer.respond(to: key, with: response, now: clock.seconds)
    }

    static let allowed = "OPTIONS"
    /// What a user agent that takes calls allows.
    package static let allowedInCalls = "INVITE, ACK, CANCEL, BYE, OPTIONS, UPDATE, PRACK, INFO, REFER, NOTIFY"
    /// The extensions our calls speak (docs/sip.md): reliable 1xx (RFC 3262) and REFER without
    /// its subscription (RFC 4488), and Replaces (RFC 3891), in our INVITEs, our responses in a
    /// call and our REFERs.
    package static let supportedInCalls = "100rel, norefersub, replaces"


    private func schedule() {
        guard let deadline = layer.nextDeadline else { return }
        if let tickDeadline, tickDeadline <= deadline { return }
        tickDeadline = deadline
        ticker?.cancel()
        let delay = max(0, deadline - clock.seconds)
        // Unstructured: one sleeping task per armed deadline, cancelled when an earlier one replaces it or the flow ends.
        ticker = Task { [weak self] in
            guard (try? await Task.sleep(for: .milliseconds(Int((delay * 1000).rounded(.up))))) != nil else { return }
            await self?.tick()
        }
    }
}

/// A request from the server for the endpoint's owner, or the ACK of a 2xx it sent.
package enum SIPIncomingRequest: Sendable {
    case request(SIPTransactionKey, SIPMessage)
    case ack(SIPMessage)
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
