/// One client transaction (RFC 3261 §17.1, with RFC 6026's Accepted state for a 2xx to an
/// INVITE). Time is an input; on a reliable transport no retransmission timer runs and the
/// completed state ends at once (Timers D and K are zero).
struct SIPClientTransaction: Sendable {
    enum State: Sendable, Equatable {
        /// INVITE: Calling; other methods: Trying.
        case calling, proceeding, completed, accepted, terminated
    }

    enum Action: Sendable, Equatable {
        case send(SIPMessage)
        case pass(SIPMessage)
        case timedOut
    }

    let key: SIPTransactionKey
    let request: SIPMessage
    let isInvite: Bool
    let reliable: Bool
    let timers: SIPTimers
    private(set) var state: State = .calling
    /// Timer A (INVITE) or E (other methods), and its current interval.
    private var retransmitAt: Double?
    private var interval: Double
    /// Timer B or F.
    private var timeoutAt: Double?
    /// Timer D, K or M: when the transaction ends.
    private var endAt: Double?
    private var ack: SIPMessage?

    init(key: SIPTransactionKey, request: SIPMessage, reliable: Bool, timers: SIPTimers, now: Double) {
        self.key = key
        self.request = request
        isInvite = request.method == "INVITE"
        self.reliable = reliable
        self.timers = timers
        interval = timers.t1
        retransmitAt = reliable ? nil : now + timers.t1
        timeoutAt = now + timers.transactionTimeout
    }

    var nextDeadline: Double? { [retransmitAt, timeoutAt, endAt].compactMap { $0 }.min() }

    mutating func received(_ response: SIPMessage, now: Double) -> [Action] {
        guard let status = response.status else { return [] }
        return isInvite ? inviteReceived(response, status: status, now: now) : nonInviteReceived(response, status: status, now: now)
    }

    private mutating func inviteReceived(_ response: SIPMessage, status: Int, now: Double) -> [Action] {
        switch (state, status) {
        case (.calling, 100...199), (.proceeding, 100...199):
            state = .proceeding
            retransmitAt = nil
            timeoutAt = nil
            return [.pass(response)]
        case (.calling, 200...299), (.proceeding, 200...299):
            state = .accepted
            retransmitAt = nil
            timeoutAt = nil
            endAt = now + timers.transactionTimeout
            return [.pass(response)]
        case (.accepted, 200...299):
            return [.pass(response)]
        case (.calling, 300...699), (.proceeding, 300...699):
            let ack = SIPMessage.ack(for: request, finalResponse: response)
            self.ack = ack
            complete(now: now, lingering: timers.timerD)
            return [.send(ack), .pass(response)]
        case (.completed, 300...699):
            return ack.map { [.send($0)] } ?? []
        default:
            return []
        }
    }

    private mutating func nonInviteReceived(_ response: SIPMessage, status: Int, now: Double) -> [Action] {
        switch (state, status) {
        case (.calling, 100...199), (.proceeding, 100...199):
            state = .proceeding
            return [.pass(response)]
        case (.calling, 200...699), (.proceeding, 200...699):
            complete(now: now, lingering: timers.t4)
            return [.pass(response)]
        default:
            return []
        }
    }

    /// A final response arrived: Completed absorbs its retransmissions for `lingering` (Timer D
    /// or K) on an unreliable transport; a reliable one has none to absorb.
    private mutating func complete(now: Double, lingering: Double) {
        retransmitAt = nil
        timeoutAt = nil
        if reliable {
            state = .terminated
        } else {
            state = .completed
            endAt = now + lingering
        }
    }

    mutating func tick(now: Double) -> [Action] {
        var actions: [Action] = []
        if let at = endAt, now >= at {
            state = .terminated
            return []
        }
        if let at = timeoutAt, now >= at {
            state = .terminated
            return [.timedOut]
        }
        // A late tick retransmits once, not once per interval missed.
        if let at = retransmitAt, now >= at {
            interval = state == .proceeding ? timers.t2 : isInvite ? interval * 2 : min(interval * 2, timers.t2)
            retransmitAt = now + interval
            actions.append(.send(request))
        }
        return actions
    }
}
