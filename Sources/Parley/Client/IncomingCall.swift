import Signaling

/// A call offered to us. Answer it, reject it (the caller hears busy), or ignore it (nothing is
/// sent; the server times it out). The call itself is `call`, ringing until one of those.
public struct IncomingCall: Sendable {
    public let call: Call
    public let callerName: String?
    public let callerNumber: String?
    public let calleeName: String?
    public let calleeNumber: String?
    public let headers: [CustomHeader]
    public let clientState: String?
    /// The caller's SDP; nil when it sent none (a SIP INVITE without SDP): answering offers.
    let offer: String?
    /// The caller opted in to trickle ICE (its invite's `trickle` flag).
    var callerTrickles = true

    public var id: String { call.id }
    /// The caller sent an offer; false for a SIP INVITE without SDP, answered with our offer.
    public var carriesOffer: Bool { offer != nil }

    /// Answers with the client's media options, or `media` for this call alone (its own
    /// recording file, say); the call is active when this returns.
    public func answer(media: MediaOptions? = nil) async throws(ParleyError) {
        guard let offer else { return try await call.answerWithOffer(media: media) }
        try await call.answer(offer: offer, media: media, peerTrickles: callerTrickles)
    }

    /// Starts our media before answering (early media): what the call plays reaches the caller,
    /// which sees `early-media`, while the call still rings here; `answer()` follows (without
    /// `media`: the call keeps the options given here). Verto and SIP; not for a call that came
    /// without an offer (`carriesOffer`), which has no answer to send early.
    public func sendEarlyMedia(media: MediaOptions? = nil) async throws(ParleyError) {
        guard let offer else {
            throw ParleyError(kind: .callState, message: "the caller sent no SDP offer, so there is no answer to send early: our offer goes in the answer")
        }
        try await call.sendEarlyMedia(offer: offer, media: media, peerTrickles: callerTrickles)
    }

    /// Refuses the call, as busy unless `cause` says otherwise.
    public func reject(cause: HangupCause = .userBusy) async throws(ParleyError) {
        try await call.reject(cause: cause)
    }

    public func ignore() async throws(ParleyError) {
        try await call.ignore()
    }

    /// Sends the caller on to `destination` without answering; the call ends here
    /// `call-forwarded` (docs/calls.md, "Transfer and forward").
    public func forward(to destination: String) async throws(ParleyError) {
        try await call.forward(to: destination)
    }
}
