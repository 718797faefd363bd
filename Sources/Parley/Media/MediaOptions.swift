import ICE
import Media
import SDP

/// How a call gathers candidates, what it offers, and what it plays and records.
public struct MediaOptions: Sendable {
    public var iceServers: [ICEServer] = []
    public var iceMode: ICEAgentConfiguration.Mode = .trickle
    /// Offer only TURN relay candidates.
    public var relayOnly = false
    /// Interface names to gather on; empty means every interface but loopback. Naming `lo`
    /// gathers on loopback, which is how the embedded demo call stays on this machine.
    public var allowedInterfaces: [String] = []
    public var ipv6 = true
    /// Trust anchors for `turns:` servers; nil means the system's.
    public var tlsCertificateAuthorityFile: String?
    /// Our codecs in preference order.
    public var capabilities: AudioCapabilities = .standard
    /// Whose order decides the codec when we answer.
    public var codecOrder: CodecOrder = .offerer
    /// Munging rules (docs/sdp.md, "Rules files"): each applies to the SDPs its scope names,
    /// those we send (offers and answers) after we write them, those we receive before we read
    /// them. `MungeRules(request)` turns a set of flag-style operations into one rule.
    public var munging = MungeRules()
    /// Called with every SDP the call sends or receives (`parley call --save-sdp`). It runs on
    /// the media actor, so it must return quickly.
    public var sdpObserver: (@Sendable (SDPExchange) -> Void)?
    /// What we send (`--play`) and where what we hear goes (`--record`).
    public var source: AudioSourceSpec = .silence
    public var sink: AudioSinkSpec = .null
    /// No RTP for this long reports media disrupted.
    public var disruptionTimeout: Duration = .seconds(5)
    /// An answered call, neither side holding, that has had RTP or RTCP from the far end and
    /// then nothing for this long ends `no-media` (`--rtp-timeout`); zero never.
    public var rtpTimeout: Duration = .zero
    /// The shards calls run on (`--threads K` makes one of K shards); every call of one
    /// process should share one engine.
    public var engine: MediaEngine = .shared
    /// libopus encoder complexity 0-10 for the frames this side encodes (`--opus-complexity`).
    public var opusComplexity = OpusSettings.defaultComplexity
    /// Lets the call's media clock lower that complexity while its ticks run short of time, and
    /// raise it back when they do not (docs/media.md, "Opus complexity under load"); false keeps
    /// `opusComplexity` whatever the load (`--fixed-opus-complexity`).
    public var adaptsOpusComplexity = true
    /// Plays `source` over and over from frames encoded once per process and shared by every
    /// call (`AudioSourceSpec.makeSharedLoopSource`), instead of a source of the call's own.
    public var sharesLoopedSource = false
    /// False when nobody hears what the call receives: packets are counted (loss, jitter, late
    /// frames, concealment) but not decoded, and `sink` gets nothing.
    public var decodesReceivedAudio = true
    /// A call whose media has not connected (ICE, DTLS, RTP from the far end) this long after it
    /// was answered ends `no-media`; zero waits for ever.
    public var mediaTimeout: Duration = .seconds(10)
    /// Notes the first played frame with a level above zero, for `Call.firstAudibleSound()`
    /// (`parley answer --report-first-audio`); off, no frame is scanned for it.
    public var watchesFirstAudible = false
    /// How `Call.sendDTMF` sends digits (`--dtmf-mode`).
    public var dtmfMode: DTMFMode = .rfc4733
    /// The rate of the call's own audio, what its sink hears and its source plays: an agent's
    /// (`AgentSession.audioRate`), so that Opus is decoded and encoded at that rate and nothing
    /// resamples (docs/agents.md, "Opus at the agent's rate"). Taken when the negotiated codec
    /// runs natively at it (Opus: 8000, 12000, 16000, 24000, 48000); otherwise, and when nil, the
    /// codec's rate (48 kHz for Opus, 8 kHz for G.711).
    public var audioRate: Int?
    /// What our offers carry (`--media`, SIP only): WebRTC's profile, or a classic SIP peer's
    /// without ICE (docs/sip.md, "Media per peer"). Answers follow the offer whatever this says,
    /// except that an unencrypted offer is answered only with `.plain`.
    public var mediaProfile: MediaProfile = .webrtc
    /// Digits go in RFC 4733 events at 8000 Hz when the far end has telephone-event only at that
    /// rate beside a codec of another clock (Opus), instead of out of band. SIP sets it for every
    /// call (docs/sip.md, "Media per peer"); Verto keeps its INFO there, as Telnyx's answers have it so.
    /// Calls without ICE take such events whatever this says (a classic peer, baresip).
    package var sendsEventsAtEightKilohertzBesideOtherClocks = false

    public init() {}

    func agentConfiguration(role: ICEAgentConfiguration.Role) -> ICEAgentConfiguration {
        ICEAgentConfiguration(
            role: role, servers: iceServers, mode: iceMode, relayOnly: relayOnly,
            allowedInterfaces: allowedInterfaces, ipv6: ipv6, componentCount: 1,
            tlsCertificateAuthorityFile: tlsCertificateAuthorityFile)
    }
}

/// What a call's media reports as it runs.
package enum MediaLegEvent: Sendable, Equatable {
    /// A candidate to trickle to the peer (`candidate:...`).
    case localCandidate(String)
    case gatheringComplete
    case iceState(ICEConnectionState)
    case selectedPair(ICESelectedPair)
    case secured(SRTPProfile)
    case dtmf(Character, inBand: Bool)
    case disrupted
    case restored
    /// Nothing has come from the far end for `MediaOptions.rtpTimeout`, neither side holding.
    case stopped
    case remoteGoodbye
    /// The first RTP packet from the far end arrived, at that instant.
    case firstPacketArrived(ContinuousClock.Instant)
    /// The first audible frame was played, at that instant (only with `watchesFirstAudible`).
    case firstAudiblePlayed(FirstAudibleSound)
    /// Media without ICE: its sockets are aimed at the peer, and media may flow.
    case pathReady
    /// Media without ICE and without SRTP (`MediaProfile.plain`): no keys to wait for.
    case unencrypted
    /// Media cannot work: ICE or DTLS failed. The call should end.
    case failed(ParleyError)
}

/// The media a call offers, per peer (`--media`).
public enum MediaProfile: String, Sendable, CaseIterable, Equatable {
    /// ICE, DTLS-SRTP, rtcp-mux, BUNDLE: browsers, WebRTC gateways, Parley itself.
    case webrtc
    /// RTP/AVP without ICE or SRTP: a desk phone, a trunk or a softphone without encryption.
    case plain
    /// RTP/SAVP with SDES keys (`a=crypto`, RFC 4568), without ICE.
    case sdes

    /// Offers and answers with no ICE: one UDP socket for RTP (and one for RTCP).
    public var isWithoutICE: Bool { self != .webrtc }
}
