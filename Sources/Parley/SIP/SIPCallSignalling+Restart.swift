import Logging
import Signaling

/// Re-INVITEs that move an answered SIP call's media (docs/sip.md, "Keeping calls"): ours, for
/// hold and for an ICE restart (`Call.restartMedia`, which a failed media path or a network change
/// sets going), and the peer's ICE restart, which the call answers as any far end's renegotiation
/// (`CallSignallingEvent.mediaUpdate`) instead of refusing it.
extension SIPCallSignalling {
    /// How often a re-INVITE refused 491 (both sides re-INVITEd at once, §14.1) is tried again.
    static let glareRetries = 2

    /// Our ICE restart: the leg's new offer in a re-INVITE; returns the peer's answer.
    func restartReinvite(offer: String) async throws(ParleyError) -> String {
        guard dialog != nil, !ended else { throw ParleyError(kind: .callState, message: "the SIP call is not answered: no dialog to restart its media in") }
        let response = try await reinvite(offer, purpose: "ICE restart")
        guard !response.body.isEmpty else {
            throw ParleyError(kind: .negotiation, message: "the 200 to our ICE-restart re-INVITE carries no SDP answer")
        }
        let answer = String(decoding: response.body, as: UTF8.self)
        sent(offer)
        remoteSDP = answer
        return answer
    }

    /// A re-INVITE of `sdp` inside the dialog with our Contact as it is now (a new flow's after
    /// the phone recovered it, so the peer's target moves with it, §12.2), its 2xx acknowledged
    /// here (§13.2.2.4). A refusal leaves the session as it was (§14.1); a 491 is tried again
    /// after §14.1's random wait, longer for the side that placed the call.
    func reinvite(_ sdp: String, purpose: String) async throws(ParleyError) -> SIPMessage {
        guard !reinviting else { throw ParleyError(kind: .callState, message: "another re-INVITE of this SIP call is pending") }
        reinviting = true
        defer { reinviting = false }
        for attempt in 0...Self.glareRetries {
            guard var current = dialog, !ended else { throw ParleyError(kind: .callState, message: "the SIP call ended before its \(purpose) re-INVITE") }
            let contact = try? SIPNameAddress(parsing: "<\(await endpoint.contactURI(user: account.user))>")
            let request = current.request("INVITE", via: await endpoint.newVia(), contact: contact,
                                          headers: [SIPHeader(.allow, SIPEndpoint.allowedInCalls), SIPHeader(.contentType, "application/sdp")],
                                          body: Array(sdp.utf8))
            dialog = current
            let response: SIPMessage
            do {
                response = try await endpoint.request(request)
            } catch {
                throw ParleyError(kind: .requestTimeout, message: "the \(purpose) re-INVITE went unanswered: \(error)")
            }
            let status = response.status ?? 0
            if status == 491, attempt < Self.glareRetries {
                let owner = call?.direction == .outgoing
                let wait = owner ? Int.random(in: 2100...4000) : Int.random(in: 0...2000)
                logger.info("SIP call \(sipCallID): the \(purpose) re-INVITE crossed the peer's (491); again in \(wait) ms")
                guard (try? await Task.sleep(for: .milliseconds(wait))) != nil else { throw ParleyError(kind: .callState, message: "the \(purpose) re-INVITE was cancelled") }
                continue
            }
            guard (200..<300).contains(status) else {
                throw ParleyError(kind: .negotiation, message: "the far end refused the \(purpose) re-INVITE: \(status) \(SIPRegistration.reason(response))")
            }
            guard var confirmed = dialog else { return response }
            try? confirmed.receiveTargetRefresh(response)
            let ack = confirmed.request("ACK", via: await endpoint.newVia(), sequence: (try? request.cseq().number) ?? 0)
            dialog = confirmed
            await endpoint.sendOutsideTransaction(ack)
            return response
        }
        throw ParleyError(kind: .negotiation, message: "the \(purpose) re-INVITE crossed the peer's \(Self.glareRetries + 1) times")
    }

    /// The peer's re-INVITE with new ICE credentials (RFC 8445 §9): the call restarts its ICE and
    /// answers it, or it is refused 488 and the session stays as it was.
    func peerRestarts(_ request: SIPMessage, key: SIPTransactionKey) async {
        guard let call else {
            await reply(to: request, key: key, status: 488, reason: "Not Acceptable Here")
            return
        }
        let offer = String(decoding: request.body, as: UTF8.self)
        logger.info("SIP call \(sipCallID): the peer restarts ICE")
        let answered = MediaUpdateReply { [weak self] result in
            await self?.answerRestart(request, key: key, offer: offer, result: result)
        }
        await call.handle(.mediaUpdate(offer: offer, reattach: false, reply: answered))
    }

    private func answerRestart(_ request: SIPMessage, key: SIPTransactionKey, offer: String, result: Result<String, MediaUpdateRefusal>) async {
        switch result {
        case .success(let answer):
            sent(answer)
            remoteSDP = offer
            await accept(request, key: key, sdp: answer)
        case .failure(let refusal):
            logger.info("SIP call \(sipCallID): refused the peer's ICE restart: \(refusal)")
            await reply(to: request, key: key, status: 488, reason: "Not Acceptable Here")
        }
    }

    /// The phone opened a new flow for its calls: requests go out on `fresh` from now on.
    func moved(to fresh: SIPEndpoint) {
        endpoint = fresh
    }

    /// The phone could not open a new flow: the call ends saying why.
    func flowGivenUp(_ error: ParleyError) async {
        guard !ended else { return }
        ended = true
        await call?.handle(.sessionLost(error))
    }
}
