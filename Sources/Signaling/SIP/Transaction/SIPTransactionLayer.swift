/// Every transaction of one transport flow (RFC 3261 §17) as a state machine without I/O:
/// the owner hands it requests to send, responses to send, received messages and the time,
/// and takes out the messages to put on the wire and the events for the transaction user.
/// Time is an input, so tests step it and replay transcripts with no clock and no sleeps.
package struct SIPTransactionLayer: Sendable {
    /// A reliable transport (TCP, TLS, WebSocket) runs no retransmission timer (§17.1.1.2).
    package let reliable: Bool
    package let timers: SIPTimers
    package let limits: SIPLimits
    private var clients: [SIPTransactionKey: SIPClientTransaction] = [:]
    private var servers: [SIPTransactionKey: SIPServerTransaction] = [:]
    private var outgoing: [SIPMessage] = []
    private var events: [SIPTransactionEvent] = []

    package init(reliable: Bool, timers: SIPTimers = SIPTimers(), limits: SIPLimits = SIPLimits()) {
        self.reliable = reliable
        self.timers = timers
        self.limits = limits
    }

    // MARK: The user's requests and responses

    /// Starts a client transaction for `request` (its top Via must carry the branch) and sends
    /// it. An ACK to a 2xx is not a transaction: it is sent and forgotten.
    @discardableResult
    package mutating func send(_ request: SIPMessage, now: Double) throws(SIPTransactionError) -> SIPTransactionKey {
        guard request.isRequest else { throw .notARequest }
        let key: SIPTransactionKey
        do {
            try request.validate()
            key = try SIPTransactionKey.client(request)
        } catch {
            throw .malformed(error)
        }
        if request.method == "ACK" {
            outgoing.append(request)
            return key
        }
        guard clients[key] == nil else { throw .duplicate(key) }
        clients[key] = SIPClientTransaction(key: key, request: request, reliable: reliable, timers: timers, now: now)
        outgoing.append(request)
        return key
    }

    /// Sends a response through the server transaction `key`.
    package mutating func respond(to key: SIPTransactionKey, with response: SIPMessage, now: Double) throws(SIPTransactionError) {
        guard var transaction = servers[key] else { throw .noSuchTransaction(key) }
        let actions = try transaction.respond(response, now: now)
        servers[key] = transaction
        perform(actions, key: key)
    }

    /// Ends a client transaction without a final response: an INVITE that a CANCEL did not end
    /// within 64·T1 (RFC 3261 §9.1). A provisional response stops Timer B, so an INVITE that
    /// rings forever lasts until its user cancels it and then gives up on it here.
    package mutating func abandon(_ key: SIPTransactionKey) { clients[key] = nil }

    /// The server transaction of the INVITE a received CANCEL cancels (§9.2), if it still runs.
    package func invite(cancelledBy key: SIPTransactionKey) -> SIPTransactionKey? {
        let invite = SIPTransactionKey(branch: key.branch, method: "INVITE", sentBy: key.sentBy)
        return servers[invite] != nil ? invite : nil
    }

    /// The request a server transaction is answering.
    package func request(of key: SIPTransactionKey) -> SIPMessage? { servers[key]?.request }

    // MARK: The network and the clock

    /// Bytes of one datagram, or one message the stream framer cut.
    package mutating func received(_ bytes: [UInt8], now: Double) {
        do {
            received(try SIPMessage.parse(bytes, limits: limits), now: now)
        } catch {
            events.append(.malformed(error))
        }
    }

    package mutating func received(_ message: SIPMessage, now: Double) {
        do {
            try message.validate()
            if message.isRequest {
                try receivedRequest(message, now: now)
            } else {
                try receivedResponse(message, now: now)
            }
        } catch {
            events.append(.malformed(error))
        }
    }

    private mutating func receivedResponse(_ response: SIPMessage, now: Double) throws(SIPParseError) {
        let key = try SIPTransactionKey.client(response)
        // A response with our branch but another Call-ID is not ours either: a hostile or
        // broken server's, which would otherwise end the transaction with a foreign answer.
        guard var transaction = clients[key], try response.callID() == (try? transaction.request.callID()) else {
            events.append(.strayResponse(response))
            return
        }
        let actions = transaction.received(response, now: now)
        clients[key] = transaction
        for action in actions {
            switch action {
            case .send(let message): outgoing.append(message)
            case .pass(let message): events.append(.response(key, message))
            case .timedOut: events.append(.timedOut(key))
            }
        }
        if transaction.state == .terminated { clients[key] = nil }
    }

    private mutating func receivedRequest(_ request: SIPMessage, now: Double) throws(SIPParseError) {
        let key = try SIPTransactionKey.server(request)
        if var transaction = servers[key] {
            let actions = transaction.received(request, now: now)
            servers[key] = transaction
            perform(actions, key: key)
            return
        }
        if request.method == "ACK" {
            // No INVITE transaction of ours sent a non-2xx to it: it acknowledges a 2xx.
            events.append(.ackForSuccess(request))
            return
        }
        var transaction = SIPServerTransaction(key: key, request: request, reliable: reliable, timers: timers)
        if transaction.isInvite {
            // 100 Trying at once (§17.2.1): the user answers within 200 ms only if it is quick.
            perform((try? transaction.respond(.response(to: request, status: 100, reason: "Trying"), now: now)) ?? [], key: key)
        }
        servers[key] = transaction
        events.append(.request(key, request))
    }

    /// Fires whatever timer is due: retransmissions (A, E, G), timeouts (B, F, H) and the ends
    /// of completed transactions (D, I, J, K, L, M).
    package mutating func tick(now: Double) {
        for key in clients.keys.sorted(by: { $0.description < $1.description }) {
            guard var transaction = clients[key], let deadline = transaction.nextDeadline, deadline <= now else { continue }
            for action in transaction.tick(now: now) {
                switch action {
                case .send(let message): outgoing.append(message)
                case .pass(let message): events.append(.response(key, message))
                case .timedOut: events.append(.timedOut(key))
                }
            }
            clients[key] = transaction.state == .terminated ? nil : transaction
        }
        for key in servers.keys.sorted(by: { $0.description < $1.description }) {
            guard var transaction = servers[key], let deadline = transaction.nextDeadline, deadline <= now else { continue }
            let actions = transaction.tick(now: now)
            servers[key] = transaction
            perform(actions, key: key)
        }
    }

    private mutating func perform(_ actions: [SIPServerTransaction.Action], key: SIPTransactionKey) {
        for action in actions {
            switch action {
            case .send(let message): outgoing.append(message)
            case .passACK(let message): events.append(.ackForSuccess(message))
            case .timedOut: events.append(.timedOut(key))
            }
        }
        if servers[key]?.state == .terminated { servers[key] = nil }
    }

    /// When `tick` next has something to do.
    package var nextDeadline: Double? {
        (clients.values.compactMap(\.nextDeadline) + servers.values.compactMap(\.nextDeadline)).min()
    }

    /// Transactions still running (client, server).
    package var count: (clients: Int, servers: Int) { (clients.count, servers.count) }

    package mutating func takeOutput() -> (messages: [SIPMessage], events: [SIPTransactionEvent]) {
        defer {
            outgoing.removeAll()
            events.removeAll()
        }
        return (outgoing, events)
    }
}
