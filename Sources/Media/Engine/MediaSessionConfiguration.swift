import SDP

/// The audio codec of a session and its RTP payload type.
package enum MediaCodec: Sendable, Equatable {
    case opus(payloadType: UInt8, settings: OpusSettings)
    case pcmu(payloadType: UInt8 = 0)
    case pcma(payloadType: UInt8 = 8)

    package var name: String {
        switch self {
        case .opus: "opus"
        case .pcmu: "PCMU"
        case .pcma: "PCMA"
        }
    }

    package var payloadType: UInt8 {
        switch self {
        case .opus(let payloadType, _), .pcmu(let payloadType), .pcma(let payloadType): payloadType
        }
    }

    /// Opus whose far end asked for in-band FEC; our own offer and answer always ask for it.
    var usesInbandFEC: Bool {
        if case .opus(_, let settings) = self { return settings.inbandFEC }
        return false
    }

    /// RTP clock rate: timestamps, jitter and telephone-event durations count in these units,
    /// whatever rate the session's audio runs at (`MediaSessionConfiguration.audioRate`).
    package var clockRate: Int {
        switch self {
        case .opus: 48000
        case .pcmu, .pcma: 8000
        }
    }

    /// The PCM rates the codec can decode to and encode from without resampling: libopus runs
    /// natively at 8, 12, 16, 24 and 48 kHz (RFC 7587 §4: the RTP clock stays 48 kHz, and the
    /// far end hears the same stream whatever rate our encoder took in); G.711 is 8 kHz only.
    package var nativeAudioRates: [Int] {
        switch self {
        case .opus: Self.opusAudioRates
        case .pcmu, .pcma: [8000]
        }
    }

    package static let opusAudioRates = [8000, 12000, 16000, 24000, 48000]
}

/// What a session needs from the negotiated SDP, plus local policy.
package struct MediaSessionConfiguration: Sendable {
    package var codec: MediaCodec
    /// Packet time for G.711 (Opus takes its own from `OpusSettings.frameMilliseconds`).
    var ptimeMilliseconds: Int
    /// The telephone-event payload type we send digits on: the one at the codec's clock rate.
    package var telephoneEventPayloadType: UInt8?
    /// That payload type's clock when it is not the codec's: 8000 for telephone-event/8000 beside
    /// Opus, which a classic SIP peer may offer alone (docs/sip.md, "Media per peer"). Durations
    /// count in its units; the timestamp stays the stream's.
    package var telephoneEventClockRate: Int?
    /// Every telephone-event payload type our description offered or answered, whatever its
    /// clock rate: a peer may send on any of them (libwebrtc sends on telephone-event/8000 beside
    /// Opus). The receiver reports an event at its start, so the event clock does not matter.
    package var receivedTelephoneEventPayloadTypes: [UInt8]
    package var localSSRC: UInt32
    /// The peer's SSRC when signalled; otherwise the first one seen is used.
    package var remoteSSRC: UInt32?
    package var cname: String
    var jitterBuffer: JitterBuffer.Configuration
    /// RTP silence after which `MediaEvent.disrupted` fires.
    package var disruptionTimeout: Duration
    /// RTP and RTCP silence, once either has arrived, after which `MediaEvent.stopped` fires;
    /// zero never (an RTP timeout, docs/calls.md "Media that stops").
    package var rtpTimeout: Duration = .zero
    package var rtcpInterval: Duration
    var dtmfDurationMilliseconds: Int
    /// -dBm0, 0...63.
    var dtmfVolume: UInt8
    /// Goertzel detection of DTMF sent as audio, a fallback for callers that leave their keys as
    /// tones (`runsInBandDTMFDetector`).
    package var detectInBandDTMF: Bool
    /// False for a call whose audio nobody hears (a load generator's): received packets still
    /// count for every statistic (sequence, loss, jitter, late frames, concealment) but are not
    /// decoded, nothing reaches the sink and no decoder is made.
    package var decodesAudio = true
    /// Raise `firstAudiblePlayed` once: until then every played frame is scanned for a sample
    /// above zero, so only a call that someone watches for it pays that.
    package var watchesFirstAudible = false
    /// Let the clock lower this call's Opus complexity while its ticks run short of time
    /// (`EncoderLoadGovernor`); false keeps the codec's complexity whatever the load
    /// (`--fixed-opus-complexity`).
    package var followsClockComplexity = true
    /// The PCM rate wanted for the call's audio (what the sink hears, what the source plays): an
    /// agent's rate, so that Opus is decoded and encoded at it and nothing resamples
    /// (docs/agents.md, "Opus at the agent's rate"). Used when the codec runs natively at it;
    /// otherwise, and when nil, the codec's own rate.
    package var preferredAudioRate: Int?

    /// The rate of the session's PCM: every frame the sink gets and the source fills.
    package var audioRate: Int {
        if let preferredAudioRate, codec.nativeAudioRates.contains(preferredAudioRate) { return preferredAudioRate }
        return codec.clockRate
    }

    package init(
        codec: MediaCodec, ptimeMilliseconds: Int = 20, telephoneEventPayloadType: UInt8? = nil, receivedTelephoneEventPayloadTypes: [UInt8]? = nil,
        localSSRC: UInt32 = UInt32.random(in: 1...UInt32.max),
        remoteSSRC: UInt32? = nil, cname: String = "parley", jitterBuffer: JitterBuffer.Configuration = .init(),
        disruptionTimeout: Duration = .seconds(5), rtcpInterval: Duration = .seconds(5), dtmfDurationMilliseconds: Int = 100,
        dtmfVolume: UInt8 = 10, detectInBandDTMF: Bool = true
    ) {
        self.codec = codec
        self.ptimeMilliseconds = ptimeMilliseconds
        self.telephoneEventPayloadType = telephoneEventPayloadType
        self.receivedTelephoneEventPayloadTypes = receivedTelephoneEventPayloadTypes ?? telephoneEventPayloadType.map { [$0] } ?? []
        self.localSSRC = localSSRC
        self.remoteSSRC = remoteSSRC
        self.cname = cname
        self.jitterBuffer = jitterBuffer
        self.disruptionTimeout = disruptionTimeout
        self.rtcpInterval = rtcpInterval
        self.dtmfDurationMilliseconds = dtmfDurationMilliseconds
        self.dtmfVolume = dtmfVolume
        self.detectInBandDTMF = detectInBandDTMF
    }

    /// Whether the session starts with the in-band detector (eight Goertzel filters over every
    /// played frame): for every call that decodes. A far end that negotiated telephone-event may
    /// still leave its keys as tones (a gateway, a caller playing a recording; docs/bots.md), so
    /// the detector runs until the first RFC 4733 event arrives, which proves the far end sends
    /// events and turns it off.
    package var runsInBandDTMFDetector: Bool {
        detectInBandDTMF && decodesAudio
    }

    /// Packet duration we send, in milliseconds.
    package var frameMilliseconds: Int {
        if case .opus(_, let settings) = codec { return settings.frameMilliseconds }
        return ptimeMilliseconds
    }

    /// Configuration for sending to and receiving from the peer described by `remote` (its
    /// answer to our offer, or the offer we answered with the same formats): the first of its
    /// formats we support, its telephone-event at the same clock rate (to send on), all its
    /// telephone-events (to receive on), its ptime, its SSRC.
    package static func negotiated(remote: MediaDescription, cname: String = "parley") throws(MediaSessionError) -> MediaSessionConfiguration {
        let codecs = remote.codecs
        let ptime = remote.attributes.first(PTime.self)?.milliseconds
        var chosen: (MediaCodec, Int)?
        for codec in codecs where !codec.isTelephoneEvent && !codec.isCompanion {
            guard let payloadType = UInt8(exactly: codec.payloadType) else { continue }
            switch (codec.name.lowercased(), codec.clockRate) {
            case ("opus", 48000):
                chosen = (.opus(payloadType: payloadType, settings: OpusSettings.negotiated(remoteParameters: codec.parameters, ptime: ptime)), 48000)
            case ("pcmu", 8000): chosen = (.pcmu(payloadType: payloadType), 8000)
            case ("pcma", 8000): chosen = (.pcma(payloadType: payloadType), 8000)
            default: continue
            }
            break
        }
        guard let (codec, rate) = chosen else { throw .noSupportedCodec(codecs.map(\.label)) }
        let telephoneEvent = codecs.first { $0.isTelephoneEvent && $0.clockRate == rate }.flatMap { UInt8(exactly: $0.payloadType) }
        let receivedEvents = codecs.filter(\.isTelephoneEvent).compactMap { UInt8(exactly: $0.payloadType) }
        // a=ssrc:<id> <attribute>; the first one names the stream.
        let ssrc = remote.attributes.first { $0.name == "ssrc" }?.value?.split(separator: " ").first.flatMap { UInt32($0) }
        var configuration = MediaSessionConfiguration(
            codec: codec, telephoneEventPayloadType: telephoneEvent, receivedTelephoneEventPayloadTypes: receivedEvents, remoteSSRC: ssrc, cname: cname)
        if let ptime, [10.0, 20, 30, 40, 60].contains(ptime), rate == 8000 { configuration.ptimeMilliseconds = Int(ptime) }
        configuration.jitterBuffer.frameMilliseconds = configuration.frameMilliseconds
        return configuration
    }
}

package enum MediaSessionError: Error, Sendable, Equatable, CustomStringConvertible {
    case noSupportedCodec([String])
    case codec(CodecError)
    case security(String)
    case invalidDTMF(String)
    case unsupportedPacketTime(Int)

    package var description: String {
        switch self {
        case .noSupportedCodec(let offered): "no supported audio codec among \(offered.joined(separator: ", ")); Parley speaks opus/48000, PCMU/8000, PCMA/8000"
        case .codec(let error): "codec: \(error)"
        case .security(let reason): "media security: \(reason)"
        case .invalidDTMF(let digits): "\"\(digits)\" is not a DTMF digit string (0-9 * # A-D)"
        case .unsupportedPacketTime(let ms): "packet time \(ms) ms is not supported (10, 20, 40 or 60)"
        }
    }
}

/// What a session reports as it runs. Delivered through `MediaSession.events`.
package enum MediaEvent: Sendable, Equatable {
    case secured(SRTPProfile)
    /// Plain RTP (`MediaSecurity.unencrypted`) flows without keys.
    case unencrypted
    case securityFailed(DTLSError)
    case disrupted
    case restored
    /// Nothing (RTP or RTCP) has come from the peer for `rtpTimeout`, outside a hold.
    case stopped
    case dtmf(DTMFDigit, inBand: Bool)
    case remoteGoodbye
    /// The first RTP packet of this payload type left (once per payload type, for debug logs).
    case firstRTPSent(payloadType: UInt8)
    /// The first RTP packet of this payload type arrived from the current or an earlier source.
    case firstRTPReceived(payloadType: UInt8)
    /// The session's first RTP packet arrived, of any payload type (once per session): `at` is
    /// its arrival, for whoever times setup to first media without reading statistics.
    case firstPacketArrived(at: ContinuousClock.Instant)
    /// The first played frame with a level above zero (once, when `watchesFirstAudible`): `at`
    /// is the tick that played it, `packetsReceived` the count then.
    case firstAudiblePlayed(at: ContinuousClock.Instant, packetsReceived: Int)
}
