import Signaling

/// Early media on a call offered to us (docs/sip.md, "Early media"): 183 Session Progress with
/// our answer before the 200, so what we play reaches the caller while the call still rings.
/// The 200 carries the same description. To a caller that supports 100rel the 183 is reliable
/// (SIPCallSignalling+Reliable.swift); to one that does not, it is sent once (RFC 3261 §13.3.1.1).
extension SIPCallSignalling {
    func earlyMedia(callID: String, sdp: String, trickle: Bool) async throws(ParleyError) {
        guard let offered, dialog == nil, !ended else { throw ParleyError(kind: .callState, message: "there is no ringing SIP INVITE to send early media for") }
        let progress = await response(to: offered.request, status: 183, reason: "Session Progress", sdp: sdp)
        try await sendProvisional(progress, reliable: sendsReliably(status: 183, withSDP: true))
        sent(sdp)
    }
}
