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

extension MediaLegEvent {
    /// The report a call passes on unchanged for this media event; nil for the ones it acts on.
    var callEvent: CallEvent? {
        switch self {
        case .iceState(let state): .iceState(state)
        case .selectedPair(let pair): .selectedPair(pair)
        case .secured(let profile): .secured(profile.rawValue)
        case .disrupted: .mediaDisrupted
        case .restored: .mediaRestored
        case .localCandidate, .gatheringComplete, .dtmf, .remoteGoodbye, .failed: nil
        }
    }
}
