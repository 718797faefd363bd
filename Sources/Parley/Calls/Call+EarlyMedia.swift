import Signaling

/// Early media on an incoming call (docs/calls.md, "Early media"): our answer SDP goes to the
/// caller in Verto's `media` before we answer, so what we play (a prompt, a ringback) reaches the
/// caller while the call still rings, and the caller sees `early-media`. The later answer carries
/// the same SDP over the same media.
extension Call {
    func sendEarlyMedia(offer: String, media: MediaOptions?, peerTrickles: Bool = true) async throws(ParleyError) {
        guard direction == .incoming, machine.state == .ringing, leg == nil else {
            throw ParleyError(kind: .callState, message: "early media is for an incoming call still ringing, before its media starts (now \(machine.state))")
        }
        let answer = try await localAnswer(to: offer, media: media, peerTrickles: peerTrickles)
        do {
            try ensureLive(sending: "early media")
            try await signalling.earlyMedia(callID: id, sdp: answer, trickle: trickle)
        } catch {
            await fail(error, telling: .normalTemporaryFailure)
            throw error
        }
        negotiation.sentEarly(answer: answer)
        await signalledCall()
    }
}
