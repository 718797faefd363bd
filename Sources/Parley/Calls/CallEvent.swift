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
    /// The call came back from dropped or reconnecting, by this path.
    case recovered(RecoveryPath)
    /// How a transfer or forward goes, ours or the far end's (docs/calls.md).
    case transfer(TransferProgress)
    /// The call was merged with the call of this id into a three-way call (docs/calls.md).
    case merged(with: String)
    /// It was split from that call again (`unmerge`, or the other call ended).
    case unmerged(from: String)
    /// A failure that ends the call follows as `state(.done(...))`; others are reported only.
    case error(ParleyError)
}

/// How a call's media path was brought back after a network change.
public enum RecoveryPath: String, Sendable {
    /// Our ICE restart through `updateMedia`, signalling being alive.
    case iceRestart = "ice-restart"
    /// The server re-offered the call after we logged in again; we answered with attach.
    case reattach
    /// The far end renegotiated (its ICE restart, or its own re-attach).
    case remote
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
        case .localCandidate, .gatheringComplete, .pathReady, .unencrypted, .stopped, .dtmf, .remoteGoodbye, .firstPacketArrived, .firstAudiblePlayed, .failed: nil
        }
    }
}
