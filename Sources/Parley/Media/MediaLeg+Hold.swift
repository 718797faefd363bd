import SDP

/// Hold in the SDP (RFC 3264 §8.4, docs/calls.md "Hold"): a re-offer of the running media that
/// changes only its direction — a=sendonly while we hold the call, a=sendrecv once we no longer
/// do — and the far end's own hold re-offers, answered recvonly or inactive. The ICE credentials,
/// candidates, DTLS fingerprint and role stay as they are: no ICE restart, no new handshake.
extension MediaLeg {
    /// Our re-offer for holding (or no longer holding) the call. The direction stays our wish
    /// for every later offer and answer (an ICE restart while held still says sendonly).
    package func holdOffer(holding: Bool) throws(ParleyError) -> String {
        wantedDirection = holding ? .sendonly : .sendrecv
        guard session != nil, !stopped, case .dtls(let fingerprint, let role) = answerSecurity else {
            throw ParleyError(kind: .callState, message: "no DTLS-SRTP media to re-offer")
        }
        sdpVersion += 1
        var description = SessionDescription.audioOffer(OfferOptions(
            capabilities: options.capabilities, ice: currentICE(), security: .dtls(fingerprint), direction: wantedDirection,
            sessionId: sdpSessionID, sessionVersion: String(2 + sdpVersion), ssrc: localSSRC, cname: cname))
        // A later offer may name the DTLS role the association already has (RFC 8842), so the far
        // end keeps its side of the running association instead of choosing again.
        for index in description.media.indices {
            description.media[index].attributes = description.media[index].attributes.map { $0.name == SetupRole.attributeName ? role.attribute : $0 }
        }
        try munge(&description, direction: .sent, type: .offer)
        return sent(description, as: .holdOffer)
    }

    /// The far end's answer to our hold re-offer: the direction it settled on decides whether we
    /// send. A far end that restarted its ICE anyway is followed.
    package func applyHoldAnswer(_ text: String) throws(ParleyError) {
        let remote = try RemoteMedia(received(text, as: .holdAnswer))
        let restarted = remote.ufrag != remoteUfrag
        if restarted { adoptRemoteICE(remote) }
        if let offered = dtlsAssociation?.role { try followAssociation(answeredBy: remote, offered: offered == .client ? .active : .passive, iceRestarted: restarted) }
        settleDirection(answeredWith: remote)
    }

    /// Whether the far end's latest offer holds us: it will not receive (sendonly or inactive).
    package var farEndHolds: Bool { !offeredDirection.receives }

    /// The direction in the far end's answer to our offer, seen from our side.
    func settleDirection(answeredWith remote: RemoteMedia) {
        negotiatedDirection = (remote.section.attributes.direction ?? .sendrecv).answer(wanting: wantedDirection)
        applySending()
    }
}
