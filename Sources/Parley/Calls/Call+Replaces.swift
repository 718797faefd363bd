/// A new far end in place of the old (SIP's Replaces, RFC 3891: the party we spoke to
/// transferred us to another, who calls us to take its place; docs/sip.md "Transfer and
/// forward").
extension Call {
    /// The old media stops and a new leg answers `party`'s offer under the same call id (a new
    /// far end has its own ICE and DTLS); the dialect sends the answer. The call keeps its state;
    /// its end is the new far end's.
    func takeReplacement(offer: String, from party: String) async {
        guard isPastAnswer else {
            return await fail(ParleyError(kind: .callState, message: "a call not answered yet cannot be replaced"), telling: .normalTemporaryFailure)
        }
        await changeFarEnd(to: party, "replaced by a call from \(party)")
        do {
            let leg = try startLeg(role: .controlled, withoutICE: MediaLeg.isWithoutICE(offer: offer))
            let answer = try await leg.answer(offer, peerTrickles: false)
            try ensureLive(sending: "answer")
            try await signalling.answer(callID: id, sdp: answer, trickle: false)
        } catch {
            await fail(error, telling: .incompatibleDestination)
        }
    }
}
