import Signaling

/// Early media on a call offered to us (docs/sip.md, "Early media"): 183 Session Progress with
/// our answer before the 200, so what we play reaches the caller while the call still rings.
/// The 200 carries the same description; without PRACK the 183 is sent once (RFC 3261 §13.3.1.1).
extension SIPCallSignalling {
    func earlyMedia(callID: String, sdp: String, trickle: Bool) async throws(ParleyError) {
        guard let offered, dialog == nil, !ended else { throw ParleyError(kind: .callState, message: "there is no ringing SIP INVITE to send early media for") }
        let progress = await response(to: offered.request, status: 183, reason: "Session Progress", sdp: sdp)
        do {
            try await endpoint.respond(to: offered.key, with: progress)
        } catch {
            throw ParleyError(kind: .callState, message: "cannot send early media (183): \(error)")
        }
        sent(sdp)
    }
}
