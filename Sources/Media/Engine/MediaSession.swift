import Foundation
import Glibc
import Locking

/// One call's audio: receive (transport → demux → unprotect → parse → jitter buffer) on the
/// network thread, and once per media clock tick: jitter buffer → decode → sink, then source →
/// encode → packetize → protect → transport. All buffers are allocated here, up front; the packet
/// paths allocate nothing and take no actor hop.
///
/// Two locks, so that a packet arriving while the clock thread encodes, sends or decodes does not
/// wait for it (docs/performance.md, "The session's two locks"). `receiveLock` guards `receiver`,
/// what both threads touch (the secure channel's receiving half and DTLS, the jitter buffer, the
/// reception statistics): the network thread takes it per datagram, the clock thread only for
/// moments. `clockLock` guards the clock side (its parts, one job each: schedule, capture,
/// encoding, RTP numbering, reports, concealment, decoding, playout, what it listens for, its
/// counters; docs/media.md, "Inside a session") against the control calls (mute, DTMF, hold,
/// statistics, stop), never against the network thread. Whoever needs both takes `clockLock`
/// first.
/// Unchecked: its fields sit behind `receiveLock` and `clockLock`, each a Lock<()> taken once per packet or tick around several; no actor hop per packet.
package final class MediaSession: @unchecked Sendable {
    package let configuration: MediaSessionConfiguration
    package let events: AsyncStream<MediaEvent>
    /// Samples per 20 ms clock tick at the session rate.
    let tickSamples: Int

    private let receiveLock = Lock(())
    /// Only ever reached through `withReceiver`, under `receiveLock`.
    private let receiver: MediaReceiver
    private let clockLock = Lock((), rank: .mediaSessionClock)
    private let continuation: AsyncStream<MediaEvent>.Continuation
    private let source: any AudioSource
    private let sink: any AudioSink

    // The clock side, each part one job (docs/media.md, "Inside a session"), all under `clockLock`.
    private var schedule: SessionSchedule
    /// Taken from the channel once it is secure: nothing is sent before.
    private var sender: SRTPSender?
    private let capture: CaptureBuffer
    private let encoding: FrameEncoding
    private let dtmfSender: DTMFSender
    private var stream = OutgoingRTPStream()
    /// RTP timestamp units per packet.
    private let frameTimestampUnits: Int
    /// One frame in the telephone-event clock's units (`frameTimestampUnits` unless it differs).
    private let eventFrameUnits: Int
    private let sendBuffer: UnsafeMutableRawBufferPointer
    private let reports: ReportWriter
    private let decoding: FrameDecoding
    private var concealment = ConcealmentPolicy()
    private let playout: PlayoutBuffer
    private var watch: PlayedAudioWatch
    private var counters = SessionCounters()
    private var muted = false
    private var sendingPaused = false
    private var onHold = false

    package init(
        configuration: MediaSessionConfiguration, security: MediaSecurity, transport: any MediaTransport,
        source: any AudioSource, sink: any AudioSink
    ) throws(MediaSessionError) {
        guard [10, 20, 40, 60].contains(configuration.frameMilliseconds) else { throw .unsupportedPacketTime(configuration.frameMilliseconds) }
        self.configuration = configuration
        // The PCM rate: Opus decodes and encodes at an agent's rate when asked (docs/agents.md);
        // RTP timestamps and telephone events stay in the codec's clock units.
        let rate = configuration.audioRate
        let decoder: (any AudioDecoder)?
        do {
            switch configuration.codec {
            case _ where !configuration.decodesAudio:
                decoder = nil
            case .opus:
                decoder = try OpusDecoder(sampleRate: rate)
            case .pcmu:
                decoder = G711Codec(law: .mu)
            case .pcma:
                decoder = G711Codec(law: .a)
            }
        } catch {
            throw .codec(error)
        }
        tickSamples = rate / 50
        let frameSamples = configuration.frameMilliseconds * rate / 1000
        self.source = source
        self.sink = sink
        let format = EncodedFrameFormat(codec: configuration.codec, frameMilliseconds: configuration.frameMilliseconds, sampleRate: rate)
        encoding = try FrameEncoding(format: format, source: source, sourceServesTicks: frameSamples == tickSamples,
                                     followsClockComplexity: configuration.followsClockComplexity)
        dtmfSender = DTMFSender(clockRate: configuration.telephoneEventClockRate ?? configuration.codec.clockRate, durationMilliseconds: configuration.dtmfDurationMilliseconds, volume: configuration.dtmfVolume)
        watch = PlayedAudioWatch(watchesFirstAudible: configuration.watchesFirstAudible, inBandDigitsAt: configuration.runsInBandDTMFDetector ? rate : nil)
        schedule = SessionSchedule(rtcpInterval: configuration.rtcpInterval)

        let (events, continuation) = AsyncStream<MediaEvent>.makeStream(bufferingPolicy: .bufferingNewest(256))
        self.events = events
        self.continuation = continuation
        // Before the buffers: an init that throws once they exist would never free them.
        do {
            receiver = try MediaReceiver(configuration: configuration, security: security, transport: transport, continuation: continuation)
        } catch {
            throw .security("\(error)")
        }

        frameTimestampUnits = configuration.frameMilliseconds * configuration.codec.clockRate / 1000
        eventFrameUnits = configuration.frameMilliseconds * (configuration.telephoneEventClockRate ?? configuration.codec.clockRate) / 1000
        sendBuffer = .allocate(byteCount: SecureMediaChannel.bufferCapacity, alignment: 16)
        reports = ReportWriter(ssrc: configuration.localSSRC, cname: configuration.cname)
        capture = CaptureBuffer(tickSamples: tickSamples, frameSamples: frameSamples)
        // Up to 120 ms per decoded packet, plus what is left over from the previous tick; a
        // session that does not decode keeps only the count of samples, not the samples.
        decoding = FrameDecoding(decoder: decoder, maximumPayload: configuration.jitterBuffer.maximumPayload, sampleRate: rate,
                                 frameSamples: configuration.jitterBuffer.frameMilliseconds * rate / 1000)
        playout = PlayoutBuffer(tickSamples: tickSamples, capacity: rate * 240 / 1000, keepsSamples: decoder != nil)
    }

    deinit {
        sendBuffer.deallocate()
    }

    /// The receive side, under its lock. Hold it for moments: the network thread waits on it.
    private func withReceiver<Result: Sendable>(_ body: (MediaReceiver) -> Result) -> Result {
        receiveLock.withLock { _ in body(receiver) }
    }

    // MARK: Control

    /// Starts the DTLS handshake and joins `clock`, which ticks the session from now on.
    package func start(on clock: MediaClock = .shared) {
        let first = clockLock.withLock { _ in schedule.start() }
        guard first else { return }
        withReceiver { $0.channel.start() }
        clock.add(self)
    }

    /// Starts a new DTLS association on the running session: the peer came back with another
    /// certificate or the other setup role (docs/media.md, "A new DTLS association"). Nothing
    /// is sent until its keys exist; the codec, the jitter buffer, the sink and the statistics go
    /// on. `startingHandshake` false leaves a DTLS client's first flight for `startHandshake`,
    /// when the path to the peer is back. Not on the packet path: it allocates a channel.
    package func replaceSecurity(_ security: MediaSecurity, startingHandshake: Bool) throws(MediaSessionError) {
        try clockLock.withLock { _ throws(MediaSessionError) in
            guard !schedule.stopped else { return }
            sender = nil
            schedule.securityReplaced()
            let running = schedule.started
            try receiveLock.withLock { _ throws(MediaSessionError) in
                do {
                    try receiver.replaceChannel(security: security)
                } catch {
                    throw .security("\(error)")
                }
                if running && startingHandshake { receiver.channel.start() }
            }
        }
    }

    /// SDES keys changed by a new offer/answer (RFC 4568 §7.1.4, docs/sip.md "Media per peer"):
    /// the peer's new key receives from now on (its old one still takes what was in flight),
    /// and with `local` our own new key protects what we send from the next packet. RTP
    /// numbering, the codec, the jitter buffer and the statistics go on. Not on the packet path.
    package func rekey(_ material: SRTPKeyingMaterial, local: Bool) throws(MediaSessionError) {
        try clockLock.withLock { _ throws(MediaSessionError) in
            guard !schedule.stopped else { return }
            let replacement = try receiveLock.withLock { _ throws(MediaSessionError) -> SRTPSender? in
                do {
                    return try receiver.channel.rekey(material, local: local)
                } catch {
                    throw .security("\(error)")
                }
            }
            // Taken already: ours from now on; not yet: the channel holds the new one.
            if let replacement, sender != nil { sender = replacement }
        }
    }

    /// Sends the first flight of a channel `replaceSecurity` left waiting (and anything the
    /// transport refused); nothing before the session started.
    package func startHandshake() {
        let running = clockLock.withLock { _ in schedule.isRunning }
        guard running else { return }
        withReceiver { $0.channel.start() }
    }

    /// Sends RTCP BYE, leaves the clock, closes the sink and ends `events`.
    package func stop(clock: MediaClock = .shared) {
        clock.remove(self)
        clockLock.withLock { _ in
            guard schedule.stop() else { return }
            withReceiver { receiver in
                receiver.stopped = true
                // Secured since the last tick: the BYE still goes.
                if sender == nil { sender = receiver.channel.takeSender() }
            }
            sendReports(goodbye: true)
            sink.close()
            continuation.finish()
        }
    }

    /// Muted sessions send silence (keeping RTP, RTCP and NAT bindings alive).
    package var isMuted: Bool {
        get { clockLock.withLock { _ in muted } }
        set { clockLock.withLock { _ in muted = newValue } }
    }

    /// Queues RFC 4733 digits (0-9 * # A-D). Needs a negotiated telephone-event payload type.
    package func sendDTMF(_ digits: String) throws(MediaSessionError) {
        guard configuration.telephoneEventPayloadType != nil else { throw .invalidDTMF("\(digits) (no telephone-event negotiated)") }
        let queued = clockLock.withLock { _ in dtmfSender.enqueue(digits) }
        guard queued else { throw .invalidDTMF(digits) }
    }

    /// Paused sessions send no RTP at all (hold: a=sendonly/inactive), only RTCP; the source
    /// keeps being read so it resumes in time. The first packet after a pause carries the marker.
    package var isSendingPaused: Bool {
        get { clockLock.withLock { _ in sendingPaused } }
        set { clockLock.withLock { _ in sendingPaused = newValue } }
    }

    /// A held call (either side holds) plays silence whatever still arrives: a far end that
    /// holds with signalling only (Verto's `modify` `hold`, as the Telnyx SDKs do) keeps sending
    /// its audio, and the held party must not hear it. No RTP while held is no disruption.
    package var isOnHold: Bool {
        get { clockLock.withLock { _ in onHold } }
        set { clockLock.withLock { _ in onHold = newValue } }
    }

    var isSecure: Bool { withReceiver { $0.channel.isSecure } }

    /// The Opus complexity this call's own encoder uses now; nil before it has one (or when it
    /// codes something else).
    package var opusComplexity: Int? { clockLock.withLock { _ in encoding.opusComplexity } }

    // MARK: Receive path (network thread)

    /// Entry point for every datagram the transport receives (except STUN), on its thread.
    /// True when it was RTP or RTCP the session took (authenticated, for SRTP).
    @discardableResult
    package func receive(_ datagram: UnsafeRawBufferPointer) -> Bool {
        withReceiver { $0.receive(datagram) }
    }

    // MARK: Clock path

    /// One 20 ms step: `send`, then `playOut`.
    package func tick(now: ContinuousClock.Instant = .now, encoderComplexityCeiling: Int = EncoderLoadGovernor.highest) {
        send(now: now, encoderComplexityCeiling: encoderComplexityCeiling)
        playOut(now: now)
    }

    /// The first half of a step: DTLS timers, whether media stopped coming, and this tick's frame
    /// from the source encoded and sent. A clock sends for every session before it plays out for
    /// any (`MediaClock`): a frame leaves as close to its tick as it can, and the last call's frame
    /// does not wait for every other call's decoding; playout has the jitter buffer's slack.
    /// `encoderComplexityCeiling`: the most Opus complexity the clock lets its encoders use now
    /// (`EncoderLoadGovernor`), for a session whose configuration follows it.
    package func send(now: ContinuousClock.Instant, encoderComplexityCeiling: Int = EncoderLoadGovernor.highest) {
        clockLock.withLock { _ in
            guard schedule.isRunning else { return }
            encoding.complexityCeiling = encoderComplexityCeiling
            // A moment under the receive side's lock: DTLS timers until keys exist, then the
            // sending half taken once; whether media stopped coming; whether RFC 4733 events did.
            withReceiver { receiver in
                if sender == nil, let taken = receiver.pollSecurity(now: now) {
                    sender = taken
                    schedule.secured(at: now)
                }
                receiver.checkDisruption(now: now, expectingMedia: !onHold)
                if receiver.telephoneEventsArrived { watch.telephoneEventsArrived() }
            }
            capture.capture(from: source, muted: muted) { sendFrame($0) }
        }
    }

    /// The second half of a step: what arrived decoded and played out, RTCP when it is due.
    package func playOut(now: ContinuousClock.Instant) {
        clockLock.withLock { _ in
            guard schedule.isRunning else { return }
            play()
            if schedule.reportDue(at: now) { sendReports(goodbye: false) }
        }
    }

    /// Fills the tick from the jitter buffer, as the concealment policy decides each step, and
    /// plays it to the sink. A session that does not decode only counts its playout.
    private func play() {
        playout.startTick()
        var steps = 0
        while playout.needsSamples && steps < 8 {
            steps += 1
            let step = withReceiver { $0.popFrame(copyingTo: decoding.payload, wantsNext: decoding.wantsNextPacket) }
            let decision = concealment.decide(step)
            guard decision != .silence else {
                playout.padWithSilence()
                break
            }
            let made = decoding.produce(decision)
            if made.concealed { counters.concealed(samples: made.samples) }
            playout.append(decoding.output, count: made.samples)
        }
        let remote = playout.finishTick(silenced: onHold)
        counters.played(samples: tickSamples)
        guard decoding.decodes else { return }
        sink.write(remote: remote, local: capture.localFrame)
        let heard = watch.listen(to: remote)
        if heard.firstAudible {
            let packetsReceived = withReceiver { $0.packetsReceived }
            continuation.yield(.firstAudiblePlayed(at: .now, packetsReceived: packetsReceived))
        }
        if let digit = heard.digit {
            counters.heardInBandDigit()
            continuation.yield(.dtmf(digit, inBand: true))
        }
    }

    private func sendFrame(_ pcm: UnsafeBufferPointer<Int16>) {
        defer { stream.frameElapsed(timestampUnits: frameTimestampUnits) }
        // No keys, no media: nothing leaves before DTLS (or SDES) has secured the channel.
        guard sender != nil else { return }
        guard !sendingPaused else {
            stream.skippedAFrame()
            return
        }
        if let eventPayloadType = configuration.telephoneEventPayloadType,
            let event = dtmfSender.step(timestamp: stream.timestamp, frameSamples: eventFrameUnits)
        {
            let fields = RTPHeaderFields(marker: event.marker, payloadType: eventPayloadType, sequenceNumber: stream.sequenceNumber, timestamp: event.timestamp, ssrc: configuration.localSSRC)
            guard let start = try? RTPPacketWriter.writeHeader(fields, into: sendBuffer) else {
                counters.sendFailed()
                return
            }
            event.event.write(into: UnsafeMutableRawBufferPointer(rebasing: sendBuffer[start..<(start + 4)]))
            transmit(length: start + 4, payloadLength: 4, payloadType: eventPayloadType)
            return
        }
        let headerLength = RTPPacket.fixedHeaderLength
        let payloadArea = UnsafeMutableRawBufferPointer(rebasing: sendBuffer[headerLength..<1400])
        guard let payload = encoding.encode(pcm, muted: muted, into: payloadArea) else {
            counters.sendFailed()
            return
        }
        if payload.preEncoded { counters.sentPreEncodedFrame() }
        guard payload.length > 0 else {
            stream.skippedAFrame()
            return
        }
        let fields = RTPHeaderFields(
            marker: stream.marksTalkspurt, payloadType: configuration.codec.payloadType, sequenceNumber: stream.sequenceNumber,
            timestamp: stream.timestamp, ssrc: configuration.localSSRC)
        guard (try? RTPPacketWriter.writeHeader(fields, into: sendBuffer)) == headerLength else {
            counters.sendFailed()
            return
        }
        stream.wroteMedia()
        transmit(length: headerLength + payload.length, payloadLength: payload.length, payloadType: configuration.codec.payloadType)
    }

    private func transmit(length: Int, payloadLength: Int, payloadType: UInt8) {
        stream.wrotePacket()
        guard sender?.send(sendBuffer, length: length, isRTCP: false) == true else {
            counters.sendFailed()
            return
        }
        if counters.sent(payloadBytes: payloadLength, payloadType: payloadType) {
            continuation.yield(.firstRTPSent(payloadType: payloadType))
        }
    }

    /// SR (or RR before we have sent anything) with a block about the peer, SDES CNAME, and BYE
    /// when leaving (RFC 3550 §6.1 compound). One that cannot be written or sent is a send failure.
    private func sendReports(goodbye: Bool) {
        guard let sender else { return }
        let about = withReceiver { $0.makeReportBlock() }
        let sent = counters.packetsSent == 0 ? nil : SenderInfo(
            ntpTimestamp: Self.wallClockNTP(), rtpTimestamp: stream.timestamp, packetCount: UInt32(truncatingIfNeeded: counters.packetsSent),
            octetCount: UInt32(truncatingIfNeeded: counters.bytesSent))
        guard let length = reports.write(sent: sent, about: about, goodbye: goodbye),
            sender.send(reports.buffer, length: length, isRTCP: true)
        else {
            counters.sendFailed()
            return
        }
    }

    static func wallClockNTP() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return NTPTime.timestamp(unixSeconds: UInt64(now.tv_sec), nanoseconds: UInt64(now.tv_nsec))
    }

    // MARK: Statistics

    /// One snapshot of both sides: the clock side's lock is held while the receive side's is
    /// taken, so what was sent and played and what was received are of the same moment.
    package func statistics() -> MediaStatistics {
        clockLock.withLock { _ in
            // The level meters read whole frames: measured before the receive side's lock is
            // taken, so that no packet waits for them.
            let audioLevel = playout.level
            let localAudioLevel = capture.localFrame.rmsLevel
            return withReceiver { receiver in
                let channel = receiver.channel!
                let profile: String? = if case .secure(let profile) = channel.state { profile.rawValue } else { nil }
                return MediaStatistics(
                    codec: configuration.codec.name, payloadType: Int(configuration.codec.payloadType), packetsSent: counters.packetsSent, bytesSent: counters.bytesSent,
                    packetsReceived: receiver.packetsReceived, bytesReceived: receiver.bytesReceived, packetsLost: receiver.packetsLost,
                    jitterMs: receiver.jitterMilliseconds, rttMs: receiver.roundTripTime.map { $0 * 1000 }, remotePacketsLost: receiver.remotePacketsLost,
                    concealedSamples: counters.concealedSamples, totalSamplesPlayed: counters.totalSamplesPlayed, jitterBufferDelayMs: receiver.jitterBufferDelayMilliseconds,
                    jitterBufferTargetMs: receiver.jitterBufferTargetMilliseconds, latePackets: receiver.jitterBufferCounters.late,
                    duplicatePackets: receiver.jitterBufferCounters.duplicates, audioLevel: audioLevel, localAudioLevel: localAudioLevel, srtpProfile: profile,
                    srtpAuthenticationFailures: channel.counters.authenticationFailures, srtpReplays: channel.counters.replays,
                    dtmfReceived: receiver.eventDigitsReceived + counters.inBandDigitsReceived, muted: muted, sendFailures: counters.sendFailures,
                    preEncodedFramesSent: counters.preEncodedFramesSent,
                    malformedPackets: receiver.malformedPackets, unknownDatagrams: channel.counters.unknownDatagrams,
                    dtlsDatagramsRefused: channel.counters.handshakeDatagramsRefused, fecNegotiated: configuration.codec.usesInbandFEC)
            }
        }
    }
}
