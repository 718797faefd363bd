import Signaling

/// An UPDATE before the call is answered (RFC 3311 §5.2), in the early dialog our 180 or the
/// far end's 1xx made: one without an offer only refreshes and is answered 200; an offer is
/// answered when the first offer and answer are done (ours in the INVITE, theirs in a provisional
/// response, which RFC 3261 §13.2.1 makes the answer), as a re-offer inside the call is
/// (`SIPSessionRefresh`); while an offer still awaits its answer it is refused as §5.2 says.
extension SIPCallSignalling {
    func updatedEarly(_ request: SIPMessage, key: SIPTransactionKey) async {
        guard !ended, (try? request.to().tag) == localTag else {
            await reply(to: request, key: key, status: 481, reason: "Call/Transaction Does Not Exist")
            return
        }
        guard !request.body.isEmpty else {
            await reply(to: request, key: key, status: 200, reason: "OK")
            return
        }
        guard let local = localSDP else {
            // The offer of the INVITE offered to us is not answered yet: 500 with a Retry-After
            // of 0-10 s, the peer to offer again once our answer is out.
            let retry = SIPHeader("Retry-After", String(Int.random(in: 0...10)))
            try? await endpoint.respond(to: key, with: .response(to: request, status: 500, reason: "Server Internal Error", toTag: localTag,
                                                                   headers: [retry]))
            return
        }
        guard let remote = remoteSDP else {
            // Our INVITE's offer has had no answer yet.
            await reply(to: request, key: key, status: 491, reason: "Request Pending")
            return
        }
        do {
            let refresh = try SIPSessionRefresh.answer(offer: String(decoding: request.body, as: UTF8.self), local: local,
                                                       version: localVersion, remote: remote)
            sent(refresh.sdp)
            await reply(to: request, key: key, status: 200, reason: "OK", sdp: refresh.sdp)
        } catch {
            logger.info("SIP call \(sipCallID): refused an early offer that restarts ICE")
            await reply(to: request, key: key, status: 488, reason: "Not Acceptable Here")
        }
    }
}
