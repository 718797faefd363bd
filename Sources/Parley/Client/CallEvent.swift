import ICE

/// What a call reports, in order, on `Call.events`.
public enum CallEvent: Sendable, Equatable {
    case state(CallState)
    /// A digit the far end pressed (RFC 4733, in-band, or a Verto info message).
    case dtmf(Character)
    case iceState(ICEConnectionState)
    case selectedPair(ICESelectedPair)
    /// DTLS finished: media is encrypted with this SRTP profile.
    case secured(String)
    /// No RTP for the configured time; `mediaRestored` follows when it returns.
    case mediaDisrupted
    case mediaRestored
    /// A failure that ends the call follows as `state(.done(...))`; others are reported only.
    case error(ParleyError)
}
