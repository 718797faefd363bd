import Logging
import Signaling

/// The SIP dialect of `CallSignalling` (docs/sip.md, "Calls"): one INVITE dialog on the phone's
/// endpoint. Our offer goes in the INVITE (all candidates in it: SIP does not trickle), 401 and
/// 407 are answered with digest, 1xx ring, the 2xx is acknowledged and answers; a final failure
/// ends the call with the reason `SIPEndReason` gives. An offered call rings (180) and is
/// answered with 200 and our SDP, then waits for the ACK; BYE ends either, CANCEL one ringing.
actor SIPCallSignalling: CallSignalling {
    let sipCallID: String
    /// The phone's endpoint; a new one after the flow was recovered (SIPPhone+FlowRecovery.swift).
    var endpoint: SIPEndpoint
    let account: SIPAccount
    let logger: Logger
    let localTag = RandomIdentifier.token(length: 10)
    private var authorizer: SIPDigestAuthorizer
    weak var call: Call?
    var dialog: SIPDialog?
    var ended = false
    private let onClose: @Sendable (String) async -> Void

    // Ours: the INVITE in flight (each challenge answered makes a new one), and whether it rang.
    var invite: SIPMessage?
    private var sequence: UInt32 = 0
    private var provisionalSeen = false
    var cancelled = false
    /// The account as our From names it, and the caller id and custom header fields.
    private var inviteFrom: SIPAccount
    private var inviteFields: [SIPHeader] = []
    /// The INVITE's progress in the order it happened: 1xx from the endpoint, the final
    /// response from the task that awaits it.
    private let progress: AsyncStream<SIPMessage>
    private let progressSink: AsyncStream<SIPMessage>.Continuation
    private var pump: Task<Void, Never>?
    /// Timer C: re-armed by each provisional response, stopped by the final one.
    private var timerC: Task<Void, Never>?

    // Theirs: the INVITE offered to us, its server transaction, and who awaits its ACK.
    var offered: (key: SIPTransactionKey, request: SIPMessage)?
    private var acknowledged = false
    /// The first ACK's SDP: the answer to an offer we made in our 200 (docs/sip.md, "Delayed offer").
    private var answerInACK: String?
    private var ackWaiter: CheckedContinuation<Bool, Never>?

    // Both: the descriptions the call was set up with, for answering the peer's later offers
    // (`SIPSessionRefresh`), and whether the peer holds the call.
    var localSDP: String?
    var localVersion: UInt64 = 0
    var remoteSDP: String?
    var remoteHolds = false
    /// We hold the call (our hold re-INVITE went through), and our 200 to an offerless re-INVITE
    /// offered, its ACK to answer.
    var localHolds = false
    var reofferedInOK = false
    /// Our re-INVITE (hold or ICE restart) awaits its final response: the peer's is answered 491.
    var reinviting = false
    /// Our 200 to the peer's re-INVITE, repeated over UDP until its ACK (§13.3.1.4), as the answer is.
    var reanswerRepeater: Task<Void, Never>?
    /// REFER either way (SIPCallSignalling+Transfer.swift), and the 3xx we may still follow
    /// (SIPCallSignalling+Redirect.swift; nil: none).
    var transferState = SIPTransferState()
    var redirects: SIPRedirects?
    /// Reliable provisional responses, RFC 3262 (SIPCallSignalling+Reliable.swift).
    var reliability = SIPReliability()

    init(callID: String, endpoint: SIPEndpoint, account: SIPAccount, logger: Logger, onClose: @escaping @Sendable (String) async -> Void) {
        sipCallID = callID
        self.endpoint = endpoint
        self.account = account
        inviteFrom = account
        self.logger = logger
        self.onClose = onClose
        authorizer = SIPDigestAuthorizer(credentials: account.credentials)
        (progress, progressSink) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    func bind(to call: Call) {
        self.call = call
    }

    /// The peer's INVITE that made this call ours to answer.
    func offer(_ request: SIPMessage, key: SIPTransactionKey) {
        offered = (key, request)
        remoteSDP = request.body.isEmpty ? nil : String(decoding: request.body, as: UTF8.self)
    }

    /// The description we sent, which a later offer of the peer's is answered from.
    func sent(_ sdp: String) {
        localSDP = sdp
        localVersion = SIPSessionRefresh.version(of: sdp) ?? 0
    }

    func open(callID: String) async throws(ParleyError) {}

    // MARK: Our INVITE

    func invite(callID: String, destination: String, options: DialOptions, sdp: String, trickle: Bool) async throws(ParleyError) -> String? {
        let target = try Self.requestURI(for: destination, domain: account.domain)
        (inviteFrom, inviteFields) = try Self.caller(of: options, account: account)
        redirects = options.followRedirects ? SIPRedirects(original: target) : nil
        sent(sdp)
        let events = progress
        // Unstructured: the INVITE's responses arrive while the call rings, long after `dial`.
        pump = Task { [weak self] in
            for await response in events { await self?.progressed(response) }
        }
        // Unstructured: the INVITE awaits its final response (at most Timer B) while `dial` returns.
        Task { await self.send(to: target, sdp: sdp) }
        return nil
    }

    /// `sip:` and `sips:` URIs as given; a bare user (or `user@host`) in the account's domain; a
    /// `tel:` number as a telephone user there (RFC 3261 §19.1.6: `;user=phone`), its visual
    /// separators dropped.
    static func requestURI(for destination: String, domain: String) throws(ParleyError) -> String {
        let uri: String
        if destination.hasPrefix("sip:") || destination.hasPrefix("sips:") {
            uri = destination
        } else if destination.lowercased().hasPrefix("tel:") {
            let number = destination.dropFirst(4).prefix { $0 != ";" }.filter { !"-.()".contains($0) }
            uri = "sip:\(number)@\(domain);user=phone"
        } else {
            uri = destination.contains("@") ? "sip:" + destination : "sip:\(destination)@\(domain)"
        }
        guard let parsed = try? SIPURI(parsing: uri), parsed.user?.isEmpty == false else {
            throw ParleyError(kind: .configuration, message: "\"\(destination)\" is not a SIP user, sip: URI or tel: number")
        }
        return uri
    }

    /// Sends the INVITE, answering up to four challenges, and hands its final response on.
    func send(to target: String, sdp: String) async {
        authorizer.beginRequest()
        var authorization: [SIPHeader] = []
        for _ in 0...4 {
            guard !cancelled else { return }
            let request = await makeInvite(to: target, sdp: sdp, authorization: authorization)
            invite = request
            provisionalSeen = false
            if let size = await endpoint.firstOversized(request) {
                logger.warning("our INVITE is \(size) bytes over UDP, more than RFC 3261 §18.1.1's 1300; a path that fragments it may lose it (;transport=tcp avoids this)")
            }
            let sink = progressSink
            let response: SIPMessage
            do {
                response = try await endpoint.request(request, onProvisional: { sink.yield($0) })
            } catch let failure as SIPRequestFailure {
                return await fail(ParleyError(SIPRegistration.signalingError(failure, method: "INVITE")), cause: .recoveryOnTimerExpire)
            } catch {
                return await fail(ParleyError(kind: .socket, message: "INVITE: \(error)"), cause: .normalTemporaryFailure)
            }
            guard response.status == 401 || response.status == 407, !cancelled else {
                progressSink.yield(response)
                return
            }
            do {
                authorization = try authorizer.answer(response, method: "INVITE", uri: target)
            } catch {
                return await fail(ParleyError(.authenticationFailed(message: error.description)), cause: .callRejected)
            }
        }
        await fail(ParleyError(.authenticationFailed(message: "the proxy challenged our INVITE five times")), cause: .callRejected)
    }

    private func makeInvite(to target: String, sdp: String, authorization: [SIPHeader]) async -> SIPMessage {
        sequence += 1
        return await endpoint.outOfDialogRequest(
            "INVITE", to: target, toHeader: "<\(target)>", from: inviteFrom, fromTag: localTag, callID: sipCallID, sequence: sequence,
            extra: [SIPHeader(.allow, SIPEndpoint.allowedInCalls), SIPHeader(.supported, SIPEndpoint.supportedInCalls)]
                + (sdp.isEmpty ? [] : [SIPHeader(.contentType, "application/sdp")]) + inviteFields + authorization,
            body: Array(sdp.utf8))
    }

    /// A response to our INVITE, in order: 1xx ring, the 2xx answers, the rest end the call.
    private func progressed(_ response: SIPMessage) async {
        guard let status = response.status, !ended else { return }
        let body = response.body.isEmpty ? nil : String(decoding: response.body, as: UTF8.self)
        switch status {
        case 100:
            provisionalSeen = true
            await armTimerC()
        case 101..<200:
            provisionalSeen = true
            // The first description the far end sends is the answer (RFC 3261 §13.2.1): an early UPDATE's offer is answered against it.
            if remoteSDP == nil { remoteSDP = body }
            await armTimerC()
            await prackIfReliable(response)
            await reportToReferrer(status, phrase: SIPRegistration.reason(response))
            await call?.handle(status == 183 && body != nil ? .earlyMedia(sdp: body) : .ringing)
        case 200..<300:
            timerC?.cancel()
            await reportToReferrer(status, phrase: SIPRegistration.reason(response))
            await accepted(response, sdp: body)
        default:
            timerC?.cancel()
            if await followsRedirect(response, status: status) { return }
            ended = true
            await reportToReferrer(status, phrase: SIPRegistration.reason(response))
            let reason = SIPEndReason.reason(forStatus: status, phrase: SIPRegistration.reason(response), callID: sipCallID,
                                             q850: SIPReason.q850(in: response))
            logger.info("the INVITE was refused: \(status) \(SIPRegistration.reason(response))")
            await call?.handle(.remoteHangup(reason))
        }
    }

    /// A provisional response stops Timer B, so a server that sends 100 (or 180) and then
    /// nothing would leave the call ringing for ever: Timer C bounds the wait for the next one.
    private func armTimerC() async {
        timerC?.cancel()
        let wait = await endpoint.timers.timerC
        // Unstructured: Timer C sleeps while the INVITE rings; the next response re-arms or stops it.
        timerC = Task { [weak self] in
            guard (try? await Task.sleep(for: .milliseconds(Int(wait * 1000)))) != nil else { return }
            await self?.timerCFired(after: wait)
        }
    }

    private func timerCFired(after wait: Double) async {
        guard dialog == nil, !ended, !cancelled, let invite else { return }
        await fail(ParleyError(.requestTimedOut(method: "INVITE", after: .milliseconds(Int(wait * 1000)))), cause: .recoveryOnTimerExpire)
        await cancel(invite, cause: .recoveryOnTimerExpire)
    }

    /// §9.1: CANCEL for our INVITE still ringing (a 2xx that crosses it is ACKed and ended with
    /// BYE, `accepted`); an INVITE that no final response ends within 64·T1 after it is given up.
    private func cancel(_ invite: SIPMessage, cause: HangupCause) async {
        cancelled = true
        var request = SIPMessage.cancel(of: invite)
        for field in SIPEndReason.fields(for: cause) { request.append(field) }
        _ = try? await endpoint.request(request)
        let endpoint = endpoint
        let wait = await endpoint.timers.transactionTimeout
        // Unstructured: the INVITE's last 64·T1 after its CANCEL; it does nothing when a final response came.
        Task {
            guard (try? await Task.sleep(for: .milliseconds(Int(wait * 1000)))) != nil else { return }
            await endpoint.abandon(invite)
        }
    }

    /// The 2xx: the dialog is confirmed and acknowledged; after our CANCEL lost the race the
    /// call is ended at once with BYE (§15).
    private func accepted(_ response: SIPMessage, sdp: String?) async {
        guard dialog == nil, let invite else { return }
        var made: SIPDialog
        do {
            made = try SIPDialog(uacRequest: invite, response: response)
        } catch {
            return await fail(ParleyError(kind: .protocolViolation, message: "the 200 to our INVITE cannot make a dialog: \(error)"), cause: .normalTemporaryFailure)
        }
        made.confirm()
        made.skipLocalSequence(past: reliability.provisionals.highestSequence)
        dialog = made
        remoteSDP = sdp
        let offeredLate = localSDP?.isEmpty == true
        // Our INVITE without SDP: the 200 offers, and the ACK carries the call's answer (docs/sip.md, "Delayed offer").
        if offeredLate, !cancelled, let sdp {
            await call?.handle(.offerInAnswer(sdp, reply: MediaUpdateReply { [weak self] result in await self?.acknowledgeOffer(result) }))
            return
        }
        await acknowledge(invite, answer: nil)
        if cancelled {
            await bye()
            return
        }
        guard let sdp else {
            let missing = offeredLate ? "the 200 to our INVITE without SDP carries no offer" : "the 200 to our INVITE carries no SDP answer"
            return await fail(ParleyError(kind: .protocolViolation, message: missing), cause: .incompatibleDestination)
        }
        await call?.handle(.answered(sdp: sdp, answererTrickles: false))
    }

    /// The ACK for the 2xx to our INVITE, with our answer when the 2xx offered.
    private func acknowledge(_ invite: SIPMessage, answer: String?) async {
        guard var dialog else { return }
        let ack = dialog.request("ACK", via: await endpoint.newVia(), sequence: (try? invite.cseq().number) ?? sequence,
                                 headers: answer == nil ? [] : [SIPHeader(.contentType, "application/sdp")], body: Array((answer ?? "").utf8))
        self.dialog = dialog
        await endpoint.sendOutsideTransaction(ack)
    }

    /// The call's answer to the offer in the 200; without one the ACK goes bare and BYE ends
    /// the session (the call ends it `INCOMPATIBLE_DESTINATION`).
    private func acknowledgeOffer(_ result: Result<String, MediaUpdateRefusal>) async {
        guard let invite else { return }
        switch result {
        case .success(let answer):
            await acknowledge(invite, answer: answer)
            sent(answer)
        case .failure:
            await acknowledge(invite, answer: nil)
            await bye(cause: .incompatibleDestination)
        }
    }

    /// Ends the call for a failure of ours: an error, then the end, BYE if it was answered.
    private func fail(_ error: ParleyError, cause: HangupCause) async {
        guard !ended else { return }
        logger.warning("SIP call \(sipCallID): \(error.message)")
        await reportToReferrer(503, phrase: "Service Unavailable")
        if dialog != nil { await bye(cause: cause) }
        ended = true
        await call?.handle(.failed(error, TerminationReason(cause, sipCallID: sipCallID)))
    }

    // MARK: The INVITE offered to us

    func ringing(callID: String) async {
        guard let offered, dialog == nil, !ended else { return }
        try? await sendProvisional(await response(to: offered.request, status: 180, reason: "Ringing"), reliable: sendsReliably(status: 180, withSDP: false))
    }

    func answer(callID: String, sdp: String, trickle: Bool) async throws(ParleyError) {
        try await accept(with: sdp)
    }

    /// An INVITE without SDP (RFC 3261 §13.2.1): our offer goes in the 200 and the caller's ACK
    /// must answer it; an ACK without one fails the session, which the call ends with BYE.
    func answer(callID: String, offer: String) async throws(ParleyError) -> String {
        try await accept(with: offer)
        guard let answer = answerInACK else {
            throw ParleyError.negotiation("the caller's ACK carries no SDP answer to the offer in our 200 (an INVITE without SDP must be answered in the ACK)")
        }
        remoteSDP = answer
        return answer
    }

    /// Sends our 200 with `sdp` and awaits its ACK.
    private func accept(with sdp: String) async throws(ParleyError) {
        guard let offered, !ended else { throw ParleyError(kind: .callState, message: "there is no SIP INVITE to answer") }
        let made: SIPDialog
        do {
            made = try SIPDialog(uasRequest: offered.request, localTag: localTag)
        } catch {
            throw ParleyError(kind: .protocolViolation, message: "the INVITE cannot make a dialog: \(error)")
        }
        // RFC 3262 §3: no 2xx before the PRACK of a reliable 1xx that carried our description.
        guard await reliablyAcknowledged(), !ended else { throw ParleyError(kind: .callState, message: "the caller did not acknowledge our early media") }
        let ok = await response(to: offered.request, status: 200, reason: "OK", sdp: sdp)
        do {
            try await endpoint.respond(to: offered.key, with: ok)
        } catch {
            throw ParleyError(kind: .callState, message: "cannot answer the INVITE: \(error)")
        }
        dialog = made
        sent(sdp)
        // The caller's ACK confirms the answer (§13.3.1.4); without it the call is not up. Over
        // UDP the 200 is ours to repeat until then: the transaction sent it once and is done.
        let repeater = await endpoint.server.transport.isReliable ? nil : repeatUntilAcknowledged(ok)
        defer { repeater?.cancel() }
        // How long: Timer H's 64·T1, 32 s by default.
        let ackTimeout = Duration.milliseconds(Int(await endpoint.timers.transactionTimeout * 1000))
        guard await awaitACK(within: ackTimeout) else {
            // The caller's BYE (a forking caller ends the forks it does not keep at once, and it
            // may pass its ACK) or our own hang-up ended the dialog first: no BYE is owed.
            guard !ended else { throw ParleyError(kind: .callState, message: "the call ended before the caller acknowledged our answer") }
            await bye(cause: .recoveryOnTimerExpire)
            ended = true
            throw ParleyError(kind: .requestTimeout, message: "the caller did not acknowledge our answer within \(ackTimeout)")
        }
    }

    /// §13.3.1.4: the 200 again at T1, doubling up to T2, until the ACK arrives (which cancels
    /// it) or Timer H's 64·T1 has passed.
    func repeatUntilAcknowledged(_ ok: SIPMessage) async -> Task<Void, Never> {
        let timers = await endpoint.timers
        let endpoint = endpoint
        // Unstructured: the repetitions run while the ACK is awaited; the ACK cancels them.
        return Task {
            var interval = timers.t1
            var waited = 0.0
            while waited < timers.transactionTimeout, (try? await Task.sleep(for: .milliseconds(Int(interval * 1000)))) != nil {
                await endpoint.sendOutsideTransaction(ok)
                waited += interval
                interval = min(interval * 2, timers.t2)
            }
        }
    }

    private func awaitACK(within ackTimeout: Duration) async -> Bool {
        if acknowledged { return true }
        // Unstructured: the ACK's deadline; cancelled when the ACK arrives first.
        let timeout = Task { [weak self] in
            guard (try? await Task.sleep(for: ackTimeout)) != nil else { return }
            await self?.acknowledge(false)
        }
        defer { timeout.cancel() }
        return await withCheckedContinuation { ackWaiter = $0 }
    }

    private func acknowledge(_ arrived: Bool) {
        if arrived { acknowledged = true }
        ackWaiter?.resume(returning: arrived)
        ackWaiter = nil
    }

    func response(to request: SIPMessage, status: Int, reason: String, sdp: String? = nil, extra: [SIPHeader] = []) async -> SIPMessage {
        var headers = [SIPHeader(.contact, "<\(await endpoint.contactURI(user: account.user))>"), SIPHeader(.allow, SIPEndpoint.allowedInCalls),
                       SIPHeader(.supported, SIPEndpoint.supportedInCalls)] + extra
        // A dialog-making response copies the request's Record-Route (§12.1.1).
        headers += request.headers(.recordRoute).map { SIPHeader(.recordRoute, $0.value) }
        if sdp != nil { headers.append(SIPHeader(.contentType, "application/sdp")) }
        return .response(to: request, status: status, reason: reason, toTag: localTag, headers: headers, body: Array((sdp ?? "").utf8))
    }

    // MARK: Requests from the far end

    /// A request inside this call that the phone routed here by its Call-ID.
    func received(_ request: SIPMessage, key: SIPTransactionKey) async {
        // §12.2.2: a request of another dialog with this Call-ID does not exist here (481): the
        // BYE of a second fork we did not keep, which must not end the call the first one made.
        if request.method != "CANCEL", request.method != "ACK", let dialog, !dialog.contains(request, requestFromUs: false) {
            await reply(to: request, key: key, status: 481, reason: "Call/Transaction Does Not Exist")
            return
        }
        // §12.2.2: a request whose CSeq does not rise is out of order (a CANCEL reuses its INVITE's).
        if request.method != "CANCEL", var current = dialog {
            do {
                try current.receive(request)
                dialog = current
            } catch {
                await reply(to: request, key: key, status: 500, reason: "Server Internal Error")
                return
            }
        }
        switch request.method {
        case "BYE":
            try? await endpoint.respond(to: key, with: .response(to: request, status: 200, reason: "OK"))
            guard dialog != nil, !ended else { return }
            ended = true
            settleTransfer(.failure(ParleyError(kind: .callState, message: "the far end hung up before the transfer completed")))
            // After its final NOTIFY, a transferee's BYE ends nothing: our transfer ends the call.
            guard !transferCompleted else { return }
            await call?.handle(.remoteHangup(TerminationReason(SIPEndReason.cause(ofBye: request), sipCallID: sipCallID)))
        case "CANCEL":
            try? await endpoint.respond(to: key, with: .response(to: request, status: 200, reason: "OK"))
            guard let offered, dialog == nil, !ended else { return }
            ended = true
            try? await endpoint.respond(to: offered.key, with: .response(to: offered.request, status: 487, reason: "Request Terminated", toTag: localTag))
            await call?.handle(.remoteHangup(SIPEndReason.reason(ofCancel: request, callID: sipCallID)))
        case "UPDATE" where dialog == nil:
            await updatedEarly(request, key: key)
        case "INVITE", "UPDATE":
            await reoffered(request, key: key)
        case "PRACK":
            await pracked(request, key: key)
        case "INFO":
            await info(request, key: key)
        case "REFER":
            await referred(request, key: key)
        case "NOTIFY":
            await notified(request, key: key)
        default:
            try? await endpoint.respond(to: key, with: .response(to: request, status: 501, reason: "Not Implemented", toTag: localTag,
                                                                   headers: [SIPHeader(.allow, SIPEndpoint.allowedInCalls)]))
        }
    }

    func receivedACK(_ ack: SIPMessage) async {
        reanswerRepeater?.cancel()
        reanswerRepeater = nil
        let answer = ack.body.isEmpty ? nil : String(decoding: ack.body, as: UTF8.self)
        if !acknowledged { answerInACK = answer }
        acknowledge(true)
        if reofferedInOK {
            reofferedInOK = false
            await answeredInACK(answer)
        }
    }

    /// The answer to the offer in our 200 to an offerless re-INVITE: sendonly or inactive holds
    /// the call, sendrecv (or recvonly, to our hold) has the peer not holding; none keeps the media.
    private func answeredInACK(_ answer: String?) async {
        guard let answer, !ended else { return }
        remoteSDP = answer
        let holds = SIPSessionRefresh.direction(of: answer).holds
        guard holds != remoteHolds else { return }
        remoteHolds = holds
        await call?.handle(holds ? .remoteHold : .remoteUnhold)
    }

    // MARK: Ending

    func hangup(callID: String, cause: HangupCause) async {
        guard !ended else { return }
        if dialog != nil {
            // A hang-up racing the 200 gets the call's default for an unanswered call
            // (USER_BUSY), but with a dialog the call is answered, and its BYE says so.
            await bye(cause: cause == .userBusy ? .normalClearing : cause)
        } else if let offered {
            let refusal = SIPEndReason.refusal(for: cause)
            try? await endpoint.respond(to: offered.key, with: await response(to: offered.request, status: refusal.status, reason: refusal.phrase,
                                                                             extra: SIPEndReason.fields(for: cause)))
        } else if let invite {
            // A caller who gives up (the unanswered call's default cause) is no busy user: its
            // CANCEL carries no Reason, which the callee reads as ORIGINATOR_CANCEL.
            await cancel(invite, cause: cause == .userBusy ? .originatorCancel : cause)
        } else {
            cancelled = true
        }
        ended = true
    }

    /// BYE, with the Q.850 Reason for `cause` (RFC 3326).
    func bye(cause: HangupCause = .normalClearing) async {
        guard var dialog else { return }
        let request = dialog.request("BYE", via: await endpoint.newVia(), headers: SIPEndReason.fields(for: cause))
        self.dialog = dialog
        ended = true
        _ = try? await endpoint.request(request)
    }

    /// The phone's flow ended under the call: it ends with the transport's error.
    func flowLost(_ error: SIPTransportError) async {
        guard !ended else { return }
        ended = true
        timerC?.cancel()
        await call?.handle(.sessionLost(ParleyError(.sipTransport(error))))
    }

    func close() async {
        reanswerRepeater?.cancel()
        settleReliable(acknowledged: false)
        timerC?.cancel()
        pump?.cancel()
        pump = nil
        progressSink.finish()
        acknowledge(false)
        await onClose(sipCallID)
    }

    // MARK: Not in SIP

    /// SIP carries every candidate in the SDP: nothing trickles.
    func candidate(callID: String, line: String) async {}

    func endOfCandidates(callID: String) async {}

    func updateMedia(callID: String, offer: String) async throws(ParleyError) -> String {
        try await restartReinvite(offer: offer)
    }

    func reattach(callID: String, sdp: String) async throws(ParleyError) {
        throw ParleyError(kind: .callState, message: "SIP has no re-attach")
    }

    func waitUntilReady(within timeout: Duration) async -> Bool { true }
}
