import Signaling

/// Reliable provisional responses (RFC 3262, docs/sip.md, "Reliable provisional responses").
/// Ours: a 183 with SDP to an INVITE that supports 100rel (any 1xx but 100 when it requires it)
/// is sent with `Require: 100rel` and an RSeq and repeated at T1 doubling to T2 until its PRACK;
/// without one within 64·T1 the INVITE is refused 500 and the call ends. Theirs: each reliable
/// 1xx to our INVITE is PRACKed once, in order.
extension SIPCallSignalling {
    // MARK: As UAC

    /// PRACKs a reliable 1xx to our INVITE in the early dialog it makes; its 200 ends the matter.
    func prackIfReliable(_ response: SIPMessage) async {
        guard let invite, let prack = reliability.provisionals.prack(for: response, invite: invite) else { return }
        guard var early = try? SIPDialog(uacRequest: invite, response: response) else {
            logger.warning("SIP call \(sipCallID): a reliable provisional response makes no early dialog; not acknowledged")
            return
        }
        let request = early.request("PRACK", via: await endpoint.newVia(), sequence: prack.sequence,
                                    headers: [SIPHeader(SIPReliableProvisionals.rack, prack.rack)])
        let endpoint = endpoint
        let logger = logger
        // Unstructured: the PRACK's transaction runs beside the INVITE's, whose next response must not wait for it.
        Task {
            let answer = try? await endpoint.request(request)
            if answer?.status.map({ (200..<300).contains($0) }) != true {
                logger.info("our PRACK was not accepted: \(answer?.status.map(String.init) ?? "no response")")
            }
        }
    }

    // MARK: As UAS

    /// Sends a provisional response to the offered INVITE, reliably when RFC 3262 makes it so
    /// (`reliable`): after any earlier reliable one has its PRACK (§3), then repeated until its own.
    func sendProvisional(_ response: SIPMessage, reliable: Bool) async throws(ParleyError) {
        guard let offered else { return }
        guard reliable else {
            do { try await endpoint.respond(to: offered.key, with: response) } catch {
                throw ParleyError(kind: .callState, message: "cannot send \(response.status ?? 0): \(error)")
            }
            return
        }
        guard await reliablyAcknowledged() else {
            throw ParleyError(kind: .callState, message: "the caller did not acknowledge our last provisional response")
        }
        let message = reliability.provisionals.reliable(response, to: offered.request)
        do { try await endpoint.respond(to: offered.key, with: message) } catch {
            throw ParleyError(kind: .callState, message: "cannot send \(response.status ?? 0): \(error)")
        }
        reliability.retransmitter = await retransmit(message)
    }

    /// Whether RFC 3262 makes this 1xx to the offered INVITE reliable.
    func sendsReliably(status: Int, withSDP: Bool) -> Bool {
        guard let request = offered?.request else { return false }
        if SIPReliableProvisionals.required(by: request) { return true }
        return withSDP && SIPReliableProvisionals.offered(by: request)
    }

    /// Waits until no reliable 1xx of ours awaits its PRACK: true once acknowledged, false when
    /// it was given up.
    func reliablyAcknowledged() async -> Bool {
        guard reliability.provisionals.unacknowledged != nil else { return !reliability.failed }
        return await withCheckedContinuation { reliability.waiters.append($0) }
    }

    /// A PRACK from the caller: 200 when it names our unacknowledged 1xx, else 481 (§3).
    func pracked(_ request: SIPMessage, key: SIPTransactionKey) async {
        guard (try? request.to().tag) == localTag, reliability.provisionals.acknowledge(request) else {
            await reply(to: request, key: key, status: 481, reason: "Call/Transaction Does Not Exist")
            return
        }
        try? await endpoint.respond(to: key, with: .response(to: request, status: 200, reason: "OK", toTag: localTag))
        settleReliable(acknowledged: true)
    }

    func settleReliable(acknowledged: Bool) {
        reliability.retransmitter?.cancel()
        reliability.retransmitter = nil
        if !acknowledged { reliability.failed = true }
        for waiter in reliability.waiters { waiter.resume(returning: acknowledged) }
        reliability.waiters = []
    }

    /// The 1xx again at T1 doubling to T2, on every transport (§3), until its PRACK cancels this
    /// or the call ends, or for 64·T1, when the call is given up.
    private func retransmit(_ message: SIPMessage) async -> Task<Void, Never> {
        let timers = await endpoint.timers
        let endpoint = endpoint
        // Unstructured: the repetitions run while the call rings; the PRACK cancels them.
        return Task { [weak self] in
            var interval = timers.t1
            var waited = 0.0
            while waited < timers.transactionTimeout {
                guard (try? await Task.sleep(for: .milliseconds(Int(min(interval, timers.transactionTimeout - waited) * 1000)))) != nil else { return }
                waited += min(interval, timers.transactionTimeout - waited)
                // A call refused, cancelled or gone meanwhile repeats nothing.
                if await self?.ended != false { return }
                if waited < timers.transactionTimeout { await endpoint.sendOutsideTransaction(message) }
                interval = min(interval * 2, timers.t2)
            }
            await self?.reliableProvisionalUnacknowledged(after: waited)
        }
    }

    /// §3: no PRACK within 64·T1: the INVITE is refused with a 5xx and the call ends.
    private func reliableProvisionalUnacknowledged(after seconds: Double) async {
        guard reliability.provisionals.unacknowledged != nil else { return }
        reliability.provisionals.abandon()
        settleReliable(acknowledged: false)
        guard let offered, dialog == nil, !ended else { return }
        ended = true
        logger.warning("SIP call \(sipCallID): no PRACK for our reliable provisional response; the call is given up")
        try? await endpoint.respond(to: offered.key, with: .response(to: offered.request, status: 500, reason: "Server Internal Error", toTag: localTag,
                                                                     headers: [SIPHeader("Warning", "399 parley \"no PRACK\"")]))
        let error = ParleyError(.requestTimedOut(method: "PRACK", after: .milliseconds(Int(seconds * 1000))))
        await call?.handle(.failed(error, TerminationReason(.recoveryOnTimerExpire, sipCallID: sipCallID)))
    }
}

/// A call's reliable provisional responses: the state of RFC 3262 both ways, our repetitions,
/// and who awaits the PRACK (our next reliable 1xx, our 200).
struct SIPReliability {
    var provisionals = SIPReliableProvisionals()
    var retransmitter: Task<Void, Never>?
    var waiters: [CheckedContinuation<Bool, Never>] = []
    /// A reliable 1xx went without its PRACK: the call is given up.
    var failed = false
}
