import Signaling

/// An incoming call that came without an offer (a SIP INVITE without SDP: docs/sip.md, "Delayed
/// offer"): answering it makes us the offerer. Our offer goes in the answer, with every candidate
/// inside (a peer that sent no offer announced no trickle), and the far end's answer comes back
/// in its acknowledgement.
extension Call {
    func answerWithOffer(media: MediaOptions?) async throws(ParleyError) {
        try begin(.answer)
        if let media { mediaOptions = media }
        if case .trickle = mediaOptions.iceMode { mediaOptions.iceMode = .vanilla(collectionTimeout: .seconds(3)) }
        negotiation.peerTrickles(false)
        do {
            let leg = try await prepare(role: .controlling, withoutICE: mediaOptions.mediaProfile.isWithoutICE)
            let offer = try await leg.makeOffer()
            try ensureLive(sending: "answer")
            let answer = try await signalling.answer(callID: id, offer: offer)
            try ensureLive(sending: "answer")
            try await leg.applyAnswer(answer)
        } catch {
            await answerFailed(error)
            throw error
        }
        await answerSucceeded()
    }
}
