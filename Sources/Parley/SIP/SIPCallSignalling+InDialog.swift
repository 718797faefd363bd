import Logging
import Signaling

/// What is asked inside an answered SIP call (docs/sip.md, "Calls"): the peer's re-INVITE or
/// UPDATE answered as `SIPSessionRefresh` says and its INFO key presses (`SIPInfoDTMF`); our
/// hold as a re-INVITE, and our digits one INFO each.
extension SIPCallSignalling {
    /// A re-INVITE or UPDATE inside the call: answered from our description as `SIPSessionRefresh`
    /// says, a refused one leaving the session as it was (§14.2); sendonly or inactive holds.
    func reoffered(_ request: SIPMessage, key: SIPTransactionKey) async {
        guard dialog != nil, !ended, !reinviting, let local = localSDP, let remote = remoteSDP else {
            // Before our dialog is up (an UPDATE while ringing), or while our own re-INVITE is
            // pending (glare, §14.2), the peer is asked to try later.
            await reply(to: request, key: key, status: 491, reason: "Request Pending")
            return
        }
        guard !request.body.isEmpty else {
            // An UPDATE without a body only refreshes the session.
            guard request.method == "INVITE" else { return await accept(request, key: key, sdp: nil) }
            // Offerless: a re-INVITE asks for our offer, our own direction in it (a resume after
            // the peer's hold is often one); the ACK's answer says whether the peer holds.
            let offer = SIPSessionRefresh.reoffer(localHolds ? .sendonly : .sendrecv, local: local, version: localVersion, remote: remote)
            sent(offer)
            reofferedInOK = true
            return await accept(request, key: key, sdp: offer)
        }
        let refresh: SIPSessionRefresh
        let offer = String(decoding: request.body, as: UTF8.self)
        do {
            refresh = try SIPSessionRefresh.answer(offer: offer, local: local, version: localVersion, remote: remote)
        } catch {
            // New ICE credentials: the call restarts its media (SIPCallSignalling+Restart.swift).
            return await peerRestarts(request, key: key)
        }
        var answer = refresh.sdp
        do {
            // SDES: our one a=crypto for the crypto accepted, the session re-keyed for a new one.
            if let call { answer = try await call.answerMediaKeys(reoffer: offer, answer: answer) }
        } catch {
            logger.warning("call \(sipCallID): refused the far end's re-offer (488): \(error)")
            await reply(to: request, key: key, status: 488, reason: "Not Acceptable Here")
            return
        }
        answer = SIPSessionRefresh.versioned(answer, local: local, version: localVersion)
        sent(answer)
        await accept(request, key: key, sdp: answer)
        await call?.followMovedMedia(offer)
        if refresh.offered.holds != remoteHolds {
            remoteHolds = refresh.offered.holds
            await call?.handle(remoteHolds ? .remoteHold : .remoteUnhold)
        }
    }

    /// 200 to a re-offer; over UDP a re-INVITE's is repeated until its ACK, as the answer's is.
    func accept(_ request: SIPMessage, key: SIPTransactionKey, sdp: String?) async {
        let ok = await reply(to: request, key: key, status: 200, reason: "OK", sdp: sdp)
        if request.method == "INVITE", !(await endpoint.server.transport.isReliable) {
            reanswerRepeater?.cancel()
            reanswerRepeater = await repeatUntilAcknowledged(ok)
        }
    }

    /// INFO: a key press (`SIPInfoDTMF`), never logged; other bodies are answered 415.
    func info(_ request: SIPMessage, key: SIPTransactionKey) async {
        guard dialog != nil, !ended else {
            await reply(to: request, key: key, status: 481, reason: "Call/Transaction Does Not Exist")
            return
        }
        do {
            let digit = try SIPInfoDTMF.digit(contentType: request.header(.contentType)?.value, body: request.body)
            await reply(to: request, key: key, status: 200, reason: "OK")
            if let digit { await call?.handle(.dtmf(String(digit))) }
        } catch .unsupportedType {
            try? await endpoint.respond(to: key, with: .response(to: request, status: 415, reason: "Unsupported Media Type", toTag: localTag,
                                                                   headers: [SIPHeader("Accept", SIPInfoDTMF.acceptedTypes)]))
        } catch {
            await reply(to: request, key: key, status: 400, reason: "Bad Request")
        }
    }

    /// A response inside the dialog: our Contact with every 2xx (a target refresh, §12.2.2).
    @discardableResult
    func reply(to request: SIPMessage, key: SIPTransactionKey, status: Int, reason: String, sdp: String? = nil, extra: [SIPHeader] = []) async -> SIPMessage {
        let answer = status < 300 ? await response(to: request, status: status, reason: reason, sdp: sdp, extra: extra)
            : .response(to: request, status: status, reason: reason, toTag: localTag)
        try? await endpoint.respond(to: key, with: answer)
        return answer
    }

    /// Our hold and resume: a re-INVITE of the media as they are, sendonly or sendrecv (RFC 3264
    /// §8.4); a refusal leaves the call as it was (§14.1).
    func hold(callID: String, _ held: Bool) async throws(ParleyError) {
        guard dialog != nil, !ended, let local = localSDP, let remote = remoteSDP else {
            throw ParleyError(kind: .callState, message: "the SIP call is not answered: nothing to hold")
        }
        var offer = SIPSessionRefresh.reoffer(held ? .sendonly : .sendrecv, local: local, version: localVersion, remote: remote)
        if let call { offer = SIPSessionRefresh.versioned(await call.reofferMediaKeys(offer), local: local, version: localVersion) }
        let response = try await reinvite(offer, purpose: "hold")
        sent(offer)
        localHolds = held
        if !response.body.isEmpty { await call?.takeAnsweredMediaKeys(String(decoding: response.body, as: UTF8.self)) }
    }

    /// Digits out of band: one INFO per digit (`application/dtmf-relay`, as `SIPInfoDTMF` reads
    /// them), each awaited before the next so the far end hears them in order.
    func sendDTMF(callID: String, digits: String) async throws(ParleyError) {
        for digit in digits {
            guard var current = dialog, !ended else { throw ParleyError(kind: .callState, message: "the SIP call is not answered: no dialog to send digits in") }
            let request = current.request("INFO", via: await endpoint.newVia(), headers: [SIPHeader(.contentType, "application/dtmf-relay")],
                                          body: Array(SIPInfoDTMF.body(for: digit).utf8))
            dialog = current
            let response: SIPMessage
            do {
                response = try await endpoint.request(request)
            } catch {
                throw ParleyError(kind: .requestTimeout, message: "a DTMF INFO went unanswered: \(error)")
            }
            guard let status = response.status, (200..<300).contains(status) else {
                throw ParleyError(kind: .negotiation, message: "the far end refused DTMF in SIP INFO: \(response.status ?? 0) \(SIPRegistration.reason(response))")
            }
        }
    }
}
