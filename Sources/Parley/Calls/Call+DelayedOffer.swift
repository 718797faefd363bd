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
            try ensureLive(sending: "media")
            try await leg.applyAnswer(answer)
        } catch {
            await answerFailed(error)
            throw error
        }
        await answerSucceeded()
    }
}

/// Ours without an offer (`DialOptions.delayedOffer`): the INVITE carries no SDP, the far end's
/// 200 offers, and our media leg answers it in the ACK, as an incoming call's answers.
extension Call {
    func dialWithoutOffer(destination: String, options: DialOptions) async throws(ParleyError) {
        do {
            try await signalling.open(callID: id)
            try ensureLive(sending: "invite")
            _ = try await signalling.invite(callID: id, destination: destination, options: options, sdp: "", trickle: false)
        } catch {
            await fail(error)
            throw error
        }
    }

    /// The far end's offer in its answer: our answer goes back, every candidate inside. One we
    /// cannot answer fails the call; the dialect has ended the session (SIP: ACK, then BYE).
    func answerLateOffer(_ offer: String, reply: MediaUpdateReply) async {
        guard !machine.state.isDone else { return await reply(.failure(.noSuchCall)) }
        let answer: String
        do {
            answer = try await localAnswer(to: offer, media: nil, peerTrickles: false)
        } catch {
            await reply(.failure(.media(error.message)))
            return await fail(error, telling: .incompatibleDestination)
        }
        await reply(.success(answer))
        await apply(.answered)
    }
}
