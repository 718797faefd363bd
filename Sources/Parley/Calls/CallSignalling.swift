import Signaling

/// What a call asks of its signalling dialect (Verto, Janus), in words neither dialect owns: the
/// call never knows which one carries it (docs/architecture.md). A request the dialect cannot
/// make (Janus: hold, incoming calls, re-attach) throws a `call-state` error.
protocol CallSignalling: Sendable {
    /// Readies the dialect's side of the call before any media is set up (Janus: its session,
    /// plugin handle and room); Verto has nothing to do.
    func open(callID: String) async throws(ParleyError)
    /// Sends our offer. Returns the far end's answer when the dialect returns it in the reply
    /// (Janus); nil when it follows as `CallSignallingEvent.answered` (Verto).
    func invite(callID: String, destination: String, options: DialOptions, sdp: String, trickle: Bool) async throws(ParleyError) -> String?
    func answer(callID: String, sdp: String, trickle: Bool) async throws(ParleyError)
    /// Answers a call that came without an offer with our `offer`; returns the far end's answer
    /// (SIP: the ACK's, docs/sip.md "Delayed offer").
    func answer(callID: String, offer: String) async throws(ParleyError) -> String
    /// Our answer SDP before the answer itself (early media); the answer follows.
    func earlyMedia(callID: String, sdp: String, trickle: Bool) async throws(ParleyError)
    func ringing(callID: String) async
    func hangup(callID: String, cause: HangupCause) async
    func hold(callID: String, _ held: Bool) async throws(ParleyError)
    /// Blind transfer (an answered call) or forward (one still ringing here): the server moves
    /// the other party to `destination` (docs/calls.md, "Transfer and forward").
    func transfer(callID: String, destination: String) async throws(ParleyError)
    /// Digits out of band, for a far end that did not negotiate telephone-event.
    func sendDTMF(callID: String, digits: String) async throws(ParleyError)
    func candidate(callID: String, line: String) async
    func endOfCandidates(callID: String) async
    /// Our ICE-restart offer; returns the far end's answer.
    func updateMedia(callID: String, offer: String) async throws(ParleyError) -> String
    /// Our answer to the server's re-offer of a call after we logged in again.
    func reattach(callID: String, sdp: String) async throws(ParleyError)
    /// Waits until call requests may be made again after a re-login; false after `timeout`.
    func waitUntilReady(within timeout: Duration) async -> Bool
    /// The call is over: the dialect releases what it holds for it (Janus: its session).
    func close() async
}

/// What the far end or the server did to a call, as its dialect reports it to `Call.handle(_:)`.
enum CallSignallingEvent: Sendable {
    case ringing
    case earlyMedia(sdp: String?)
    /// `answererTrickles`: the far end takes trickled candidates (Verto: the answer's `trickle`
    /// flag; Janus always does).
    case answered(sdp: String?, answererTrickles: Bool = true)
    /// The far end answered our invite without SDP with its offer (SIP's delayed offer): our
    /// answer goes back in `reply` (SIP: the ACK), and the call is answered.
    case offerInAnswer(String, reply: MediaUpdateReply)
    case remoteHangup(TerminationReason)
    case remoteCandidate(String)
    case remoteEndOfCandidates
    case remoteHold
    case remoteUnhold
    /// Digits the far end sent out of band.
    case dtmf(String)
    /// The other party transferred or forwarded us: the call goes on towards `destination`.
    case transferred(destination: String)
    /// Another party takes the far end's place with `offer` (SIP's Replaces): we answer it.
    case replaced(offer: String, by: String)
    /// News of a transfer or redirect the dialect handled itself (SIP's 3xx), for the call's events.
    case transferProgress(TransferProgress)
    /// The far end renegotiates (its ICE restart, or its re-attach relayed by the server).
    case mediaUpdate(offer: String, reattach: Bool, reply: MediaUpdateReply)
    /// Conference members joined (by the dialect's id) or one left.
    case participants(joined: [Int: String], left: Int?)
    /// The dialect's session is gone and cannot come back (Janus: session timeout, socket closed).
    case sessionLost(ParleyError)
    /// A failure worth reporting that does not end the call.
    case error(ParleyError)
    /// The far end or the dialect ended the call because of `error` (SIP: credentials refused
    /// on the INVITE, a transaction timed out): it ends as `remoteHangup` would, and `error` is
    /// the call's failure, which the exit status reads.
    case failed(ParleyError, TerminationReason)
}

extension CallSignalling {
    /// A dialect whose incoming calls always carry an offer (Verto, Janus).
    func answer(callID: String, offer: String) async throws(ParleyError) -> String {
        throw ParleyError(kind: .callState, message: "this dialect has no incoming calls without an offer")
    }

    /// A dialect without early media for our incoming calls (Janus offers us none).
    func earlyMedia(callID: String, sdp: String, trickle: Bool) async throws(ParleyError) {
        throw ParleyError(kind: .callState, message: "this dialect has no early media for incoming calls")
    }
}

/// Completes the far end's renegotiation request, whatever the dialect's reply looks like.
struct MediaUpdateReply: Sendable {
    let send: @Sendable (Result<String, MediaUpdateRefusal>) async -> Void

    func callAsFunction(_ result: Result<String, MediaUpdateRefusal>) async {
        await send(result)
    }
}

/// Why we could not take the far end's renegotiation.
enum MediaUpdateRefusal: Error, Sendable {
    case notAnswered
    case noSuchCall
    case media(String)
}
