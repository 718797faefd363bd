/// One server transaction (RFC 3261 §17.2, with RFC 6026's Accepted state: after a 2xx to an
/// INVITE, retransmitted INVITEs are absorbed and ACKs go to the user). An INVITE is answered
/// with 100 Trying at once (§17.2.1), so the client stops retransmitting it.
struct SIPServerTransaction: Sendable {
    enum State: Sendable, Equatable {
        /// INVITE: Proceeding from the start; other methods: Trying until a provisional response.
        case trying, proceeding, completed, confirmed, accepted, terminated
    }

    enum Action: Sendable, Equatable {
        case send(SIPMessage)
        case passACK(SIPMessage)
        case timedOut
    }

    let key: SIPTransactionKey
    let request: SIPMessage
    let isInvite: Bool
    let reliable: Bool
    let timers: SIPTimers
    private(set) var state: State
    private var lastResponse: SIPMessage?
    /// Timer G and its interval; Timer H; Timers I, J and L.
    private var retransmitAt: Double?
    private var interval: Double
    private var timeoutAt: Double?
    private var endAt: Double?

    init(key: SIPTransactionKey, request: SIPMessage, reliable: Bool, timers: SIPTimers) {
        self.key = key
        self.request = request
        isInvite = request.method == "INVITE"
        self.reliable = reliable
        self.timers = timers
        interval = timers.t1
        state = isInvite ? .proceeding : .trying
    }

    var nextDeadline: Double? { [retransmitAt, timeoutAt, endAt].compactMap { $0 }.min() }
    var isFinished: Bool { [.completed, .confirmed, .accepted, .terminated].contains(state) }

    /// The request again, or an ACK to our final response.
    mutating func received(_ request: SIPMessage, now: Double) -> [Action] {
        if request.method == "ACK" {
            switch state {
            case .completed:
                state = .confirmed
                retransmitAt = nil
                timeoutAt = nil
                if reliable { state = .terminated } else { endAt = now + timers.t4 }
                return []
            case .accepted: return [.passACK(request)]
            default: return []
            }
        }
        switch state {
        case .proceeding, .completed: return lastResponse.map { [.send($0)] } ?? []
        default: return []
        }
    }

    mutating func respond(_ response: SIPMessage, now: Double) throws(SIPTransactionError) -> [Action] {
        let status = response.status ?? 0
        switch (isInvite, state, status) {
        case (_, .trying, 100...199), (_, .proceeding, 100...199):
            state = .proceeding
        case (true, .proceeding, 200...299):
            state = .accepted
            endAt = now + timers.transactionTimeout
        case (true, .accepted, 200...299):
            break
        case (true, .proceeding, 300...699):
            state = .completed
            if !reliable { retransmitAt = now + timers.t1 }
            timeoutAt = now + timers.transactionTimeout
        case (false, .trying, 200...699), (false, .proceeding, 200...699):
            if reliable {
                state = .terminated
            } else {
                state = .completed
                endAt = now + timers.transactionTimeout
            }
        default:
            throw .alreadyAnswered(key)
        }
        lastResponse = response
        return [.send(response)]
    }

    mutating func tick(now: Double) -> [Action] {
        if let at = endAt, now >= at {
            state = .terminated
            return []
        }
        if let at = timeoutAt, now >= at {
            state = .terminated
            return [.timedOut]
        }
        if let at = retransmitAt, now >= at, let lastResponse {
            interval = min(interval * 2, timers.t2)
            retransmitAt = now + interval
            return [.send(lastResponse)]
        }
        return []
    }
}
