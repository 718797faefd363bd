import Signaling

/// What goes with one outgoing call.
public struct DialOptions: Sendable {
    public var callerName = ""
    public var callerNumber = ""
    /// Custom SIP headers (`X-...`), passed through to the far end.
    public var headers: [CustomHeader] = []
    /// Opaque state the server hands back on events (Telnyx expects base64).
    public var clientState: String?
    /// Overrides the client's media options for this call (e.g. its own `--play`/`--record`).
    public var media: MediaOptions?
    /// How long the call may go unanswered (dialing, ringing or early media) before we end it
    /// `no-answer` (NO_ANSWER, 19); nil rings until the far end or the server ends it.
    public var ringTimeout: Duration? = .seconds(60)
    /// SIP: a 3xx to our INVITE is followed with a new INVITE to its Contact (at most five, no
    /// target twice); false ends the call with the 3xx (docs/sip.md, "Redirects").
    public var followRedirects = true
    /// SIP: the INVITE carries no SDP, leaving the offer to the far end's 200, and the ACK
    /// answers it (a delayed offer, docs/sip.md "Delayed offer"); Verto refuses it.
    public var delayedOffer = false

    public init() {}
}
