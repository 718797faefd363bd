import Logging
import Signaling

/// Where the transfers of one SIP dialog stand (docs/sip.md, "Transfer").
struct SIPTransferState: Sendable {
    /// Ours: the REFER's outcome as its NOTIFYs tell it, and who awaits it. An outcome that
    /// arrives first (a NOTIFY can overtake the 202) waits here.
    var awaiting = false
    var outcome: Result<Void, ParleyError>?
    var waiter: CheckedContinuation<Result<Void, ParleyError>, Never>?
    /// Theirs: the REFER we accepted (its CSeq is the NOTIFYs' Event id), until the call takes
    /// it up as a new INVITE (`SIPCallLegs`).
    var accepted: (sequence: UInt32, request: SIPReferral.Request)?
    var followed = false
    /// The NOTIFYs to the referrer go out one after another, in CSeq order.
    var notifying: Task<Void, Never>?
    /// On the dialog a REFER made: the dialog that asked for it, told how our INVITE goes.
    var referrer: SIPCallSignalling?
}

/// Blind transfer over SIP (RFC 3515): our REFER and the NOTIFYs that report its outcome; a
/// peer's REFER accepted, followed as a new INVITE and reported back; and forwarding a call that
/// still rings here with 302.
extension SIPCallSignalling {
    /// How long a REFER's final NOTIFY may take: the transfer target rings meanwhile.
    static let transferOutcomeTimeout = Duration.seconds(90)

    /// An answered call: REFER to `destination`; the far end's final NOTIFY says how its INVITE
    /// went. 2xx: we leave the call with BYE and the call ends `session-completed`. Anything else
    /// throws, and the call stays as it was. A call still ringing here is forwarded with 302.
    func transfer(callID: String, destination: String) async throws(ParleyError) {
        if dialog == nil, let offered, !ended { return try await forward(offered, to: destination) }
        guard var current = dialog, !ended else { throw ParleyError(kind: .callState, message: "the SIP call is not answered: nothing to transfer") }
        let target = try Self.requestURI(for: destination, domain: account.domain)
        let contact = SIPNameAddress(uri: await endpoint.contactURI(user: account.user))
        let refer = current.request("REFER", via: await endpoint.newVia(), contact: contact,
                                    headers: [SIPHeader("Refer-To", "<\(target)>"), SIPHeader("Referred-By", "<\(account.addressOfRecord)>"),
                                              SIPHeader(.supported, SIPEndpoint.supportedInCalls)])
        dialog = current
        transferState.awaiting = true
        transferState.outcome = nil
        defer { transferState.awaiting = false }
        let response: SIPMessage
        do {
            response = try await endpoint.request(refer)
        } catch {
            throw ParleyError(kind: .requestTimeout, message: "the REFER went unanswered: \(error)")
        }
        guard let status = response.status, (200..<300).contains(status) else {
            throw ParleyError(kind: .serverError, message: "the far end refused the transfer: \(response.status ?? 0) \(SIPRegistration.reason(response))")
        }
        logger.info("SIP call \(sipCallID): REFER to \(target) accepted (\(status))")
        // RFC 4488: a 2xx that says `Refer-Sub: false` leaves no subscription, so no NOTIFY will
        // tell the outcome. The far end took the call on; we leave it as after a NOTIFY of 200.
        if SIPReferral.declinesSubscription(response) {
            logger.info("SIP call \(sipCallID): the transfer has no subscription (Refer-Sub: false): it is taken as completed")
            transferState.outcome = .success(())
        } else if case .failure(let error) = await transferOutcome() {
            throw error
        }
        if !ended { await bye(cause: .normalClearing) }
    }

    /// Our REFER's final NOTIFY said 2xx.
    var transferCompleted: Bool {
        if case .success? = transferState.outcome { true } else { false }
    }

    /// The outcome the NOTIFYs settle, or a timeout's.
    private func transferOutcome() async -> Result<Void, ParleyError> {
        if let outcome = transferState.outcome { return outcome }
        let timeout = Self.transferOutcomeTimeout
        // Unstructured: the final NOTIFY's deadline; it does nothing once the outcome is in.
        let timer = Task { [weak self] in
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            await self?.settleTransfer(.failure(ParleyError(kind: .requestTimeout, message: "no final NOTIFY for the transfer within \(timeout)")))
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { transferState.waiter = $0 }
    }

    func settleTransfer(_ outcome: Result<Void, ParleyError>) {
        guard transferState.awaiting, transferState.outcome == nil else { return }
        transferState.outcome = outcome
        transferState.waiter?.resume(returning: outcome)
        transferState.waiter = nil
    }

    /// A NOTIFY in this dialog: answered 200; a sipfrag's final status settles our transfer.
    func notified(_ request: SIPMessage, key: SIPTransactionKey) async {
        guard dialog != nil, !ended else {
            await reply(to: request, key: key, status: 481, reason: "Call/Transaction Does Not Exist")
            return
        }
        guard let event = request.header("Event")?.value.lowercased(), event.hasPrefix("refer") else {
            await reply(to: request, key: key, status: 489, reason: "Bad Event")
            return
        }
        await reply(to: request, key: key, status: 200, reason: "OK")
        guard let fragment = SIPReferral.status(ofSipfrag: request.body) else {
            if SIPReferral.endsSubscription(request) {
                settleTransfer(.failure(ParleyError(kind: .protocolViolation, message: "the transfer's subscription ended without a final status")))
            }
            return
        }
        let (status, phrase) = fragment
        logger.info("SIP call \(sipCallID): the transfer's INVITE: \(status) \(phrase)")
        if (200..<300).contains(status) {
            settleTransfer(.success(()))
        } else if status >= 300 {
            settleTransfer(.failure(ParleyError(kind: .serverError, message: "the transfer target answered \(status) \(phrase)")))
        }
    }

    /// Forwards a call still ringing here: 302 with the destination as Contact (RFC 3261
    /// §21.3.3); the caller's phone or proxy calls it.
    private func forward(_ offered: (key: SIPTransactionKey, request: SIPMessage), to destination: String) async throws(ParleyError) {
        let target = try Self.requestURI(for: destination, domain: account.domain)
        let moved = SIPMessage.response(to: offered.request, status: 302, reason: "Moved Temporarily", toTag: localTag,
                                        headers: [SIPHeader(.contact, "<\(target)>")])
        do {
            try await endpoint.respond(to: offered.key, with: moved)
        } catch {
            throw ParleyError(kind: .callState, message: "cannot forward the call: \(error)")
        }
        ended = true
    }

    // MARK: The peer's REFER

    /// A REFER inside the call: accepted (202) when we can follow it, then a NOTIFY of 100 and
    /// the call sent on (`CallSignallingEvent.transferred`, which `SIPCallLegs` makes a new
    /// INVITE); one we cannot honour is refused with a 4xx that says why.
    func referred(_ request: SIPMessage, key: SIPTransactionKey) async {
        let asked: SIPReferral.Request
        do {
            asked = try SIPReferral.request(of: request)
            _ = try Call.checkedDestination(asked.target)
        } catch let refusal as SIPReferral.Refusal {
            await reply(to: request, key: key, status: refusal.status, reason: refusal.phrase)
            return
        } catch {
            await reply(to: request, key: key, status: 400, reason: "Bad Request (Refer-To too long)")
            return
        }
        guard dialog != nil, !ended, let call else {
            await reply(to: request, key: key, status: 481, reason: "Call/Transaction Does Not Exist")
            return
        }
        guard transferState.accepted == nil else {
            await reply(to: request, key: key, status: 491, reason: "Request Pending")
            return
        }
        // RFC 4488: a REFER that says `Refer-Sub: false` gets it back in the 202, and no NOTIFY.
        await reply(to: request, key: key, status: 202, reason: "Accepted", extra: asked.subscribes ? [] : [SIPHeader(SIPReferral.referSub, "false")])
        transferState.accepted = ((try? request.cseq().number) ?? 0, asked)
        await notifyReferrer(status: 100, phrase: "Trying")
        logger.info("SIP call \(sipCallID): referred to \(asked.target)\(asked.subscribes ? "" : " (no subscription)")")
        // This dialog no longer speaks for the call: the referrer's BYE ends nothing.
        self.call = nil
        let target = asked.target
        // Unstructured: following the transfer gathers a new offer (seconds); the phone's requests go on meanwhile.
        Task { await call.handle(.transferred(destination: target)) }
    }

    /// The REFER accepted and not yet followed, taken by the new INVITE that follows it.
    func takeAcceptedReferral() -> SIPReferral.Request? {
        guard let accepted = transferState.accepted, !transferState.followed else { return nil }
        transferState.followed = true
        return accepted.request
    }

    /// This dialog's INVITE follows a REFER `referrer` accepted: its progress is told there.
    func reportProgress(to referrer: SIPCallSignalling) {
        transferState.referrer = referrer
    }

    /// Our INVITE's progress, for the dialog whose REFER it follows (no-op otherwise).
    func reportToReferrer(_ status: Int, phrase: String) async {
        guard let referrer = transferState.referrer else { return }
        if status >= 200 { transferState.referrer = nil }
        await referrer.notifyReferrer(status: status, phrase: phrase)
    }

    /// A NOTIFY of `status` to the peer whose REFER we follow; after the final one this dialog
    /// ends with BYE, unless the referrer ended it first. Sent in order, never awaited by the caller.
    func notifyReferrer(status: Int, phrase: String) async {
        let via = await endpoint.newVia()
        let contact = SIPNameAddress(uri: await endpoint.contactURI(user: account.user))
        // The CSeq is taken with the place in the chain, after the awaits: they stay in one order.
        guard let accepted = transferState.accepted, var current = dialog, !ended else { return }
        let final = status >= 200
        guard accepted.request.subscribes else {
            // No subscription: nothing to tell, but this dialog still ends after the final response.
            if final {
                logger.info("SIP call \(sipCallID): the referred INVITE ended \(status) \(phrase), told in no NOTIFY (Refer-Sub: false)")
                await bye(cause: .normalClearing)
            }
            return
        }
        let notify = current.request("NOTIFY", via: via, contact: contact,
                                     headers: SIPReferral.notifyFields(referSequence: accepted.sequence, final: final),
                                     body: SIPReferral.sipfrag(status: status, phrase: phrase))
        dialog = current
        let previous = transferState.notifying
        let endpoint = endpoint
        // Unstructured: each NOTIFY awaits its response after the one before, while the new INVITE goes on.
        transferState.notifying = Task { [weak self] in
            await previous?.value
            let answer = try? await endpoint.request(notify)
            await self?.referrerTook(status: status, phrase: phrase, answer: answer, final: final)
        }
    }

    private func referrerTook(status: Int, phrase: String, answer: SIPMessage?, final: Bool) async {
        let outcome = answer.map { "\($0.status ?? 0) \(SIPRegistration.reason($0))" } ?? "no answer"
        logger.info("SIP call \(sipCallID): the referrer took our NOTIFY of \(status) \(phrase): \(outcome)")
        if final, !ended { await bye(cause: .normalClearing) }
    }

}
