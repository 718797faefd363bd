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
/// moments. `clockLock` guards every stored `var` of this class (the clock side: encoder,
/// decoder, sending half, playout, counters of what was sent and played) against the control
/// calls (mute, DTMF, hold, statistics, stop), never against the network thread. Whoever needs
/// both takes `clockLock` first.
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
    /// Taken from the channel once it is secure: nothing is sent before.
    private var sender: SRTPSender?
    /// Made on the first frame that needs it: a session whose source hands it pre-encoded frames
    /// (a bot's cached prompts) may never run an encoder of its own.
    private var encoder: (any AudioEncoder)?
    private let encodedSource: (any EncodedAudioSource)?
    /// The format of our frames, when a pre-encoded source can serve them: frames as long as a
    /// clock tick, so every frame is exactly one `read` of the source.
    private let encodedFormat: EncodedFrameFormat?
    /// What our own encoder makes: the codec at the session's PCM rate.
    private let ownFormat: EncodedFrameFormat
    private var encoderFailed = false
    /// What the clock allows this tick; the encoder ignores a ceiling it already has.
    private var complexityCeiling = EncoderLoadGovernor.highest
    private var preEncodedFramesSent = 0
    /// Nil when the configuration says not to decode (`decodesAudio` false).
    private let decoder: (any AudioDecoder)?
    private let source: any AudioSource
    private let sink: any AudioSink
    private let dtmfSender: DTMFSender
    private var inBandDetector: InBandDTMFDetector?

    /// Samples per packet at the session's PCM rate, and the same span in RTP timestamp units.
    private let frameSamples: Int
    private let frameTimestampUnits: Int
    private let remoteFrameSamples: Int
    private let sendBuffer: UnsafeMutableRawBufferPointer
    private let rtcpBuffer: UnsafeMutableRawBufferPointer
    /// A frame's payload copied out of the jitter buffer, to decode after its lock is released.
    private let receivedPayload: UnsafeMutableRawBufferPointer
    private let pending: UnsafeMutableBufferPointer<Int16>
    private var pendingCount = 0
    private let localFrame: UnsafeMutableBufferPointer<Int16>
    private let decoded: UnsafeMutableBufferPointer<Int16>
    private let playout: UnsafeMutableBufferPointer<Int16>
    private var playoutCount = 0
    /// The last tick's remote frame is still at the head of `playout` (it leaves at the start
    /// of the next tick), so a level meter can be read from it when asked, not every tick.
    private var playedFrame = false
    private let cname: [UInt8]

    private var sequenceNumber = UInt16.random(in: 0...UInt16.max)
    private var timestamp = UInt32.random(in: 0...UInt32.max)
    private var started = false
    private var stopped = false
    private var muted = false
    private var sendingPaused = false
    private var onHold = false
    private var sentFirstPacket = false
    private var previousWasDTX = false
    private var everPlayed = false
    /// Set from `watchesFirstAudible`; off once `firstAudiblePlayed` was raised.
    private var watchingFirstAudible = false
    /// Payload types already reported in a `firstRTPSent` event.
    private var sentPayloadTypes = PayloadTypeSet()
    private var concealedInARow = 0
    private var nextRTCP: ContinuousClock.Instant?

    private var packetsSent = 0
    private var sendFailures = 0
    private var bytesSent = 0
    private var concealedSamples = 0
    private var totalSamplesPlayed = 0
    private var inBandDigitsReceived = 0

    package init(
        configuration: MediaSessionConfiguration, security: MediaSecurity, transport: any MediaTransport,
        source: any AudioSource, sink: any AudioSink
    ) throws(MediaSessionError) {
        guard [10, 20, 40, 60].contains(configuration.frameMilliseconds) else { throw .unsupportedPacketTime(configuration.frameMilliseconds) }
        self.configuration = configuration
        // The PCM rate: Opus decodes and encodes at an agent's rate when asked (docs/agents.md);
        // RTP timestamps and telephone events stay in the codec's clock units.
        let rate = configuration.audioRate
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
        frameSamples = configuration.frameMilliseconds * rate / 1000
        frameTimestampUnits = configuration.frameMilliseconds * configuration.codec.clockRate / 1000
        remoteFrameSamples = configuration.jitterBuffer.frameMilliseconds * rate / 1000
        self.source = source
        self.sink = sink
        encodedSource = source as? any EncodedAudioSource
        let format = EncodedFrameFormat(codec: configuration.codec, frameMilliseconds: configuration.frameMilliseconds, sampleRate: rate)
        ownFormat = format
        encodedFormat = frameSamples == tickSamples ? format : nil
        if encodedSource == nil {
            do {
                encoder = try format.makeEncoder()
            } catch {
                throw .codec(error)
            }
        }
        dtmfSender = DTMFSender(clockRate: configuration.codec.clockRate, durationMilliseconds: configuration.dtmfDurationMilliseconds, volume: configuration.dtmfVolume)
        if configuration.runsInBandDTMFDetector { inBandDetector = InBandDTMFDetector(sampleRate: rate) }
        watchingFirstAudible = configuration.watchesFirstAudible
        cname = Array(configuration.cname.utf8.prefix(255))

        let (events, continuation) = AsyncStream<MediaEvent>.makeStream(bufferingPolicy: .bufferingNewest(256))
        self.events = events
        self.continuation = continuation
        // Before the buffers: an init that throws once they exist would never free them.
        do {
            receiver = try MediaReceiver(configuration: configuration, security: security, transport: transport, continuation: continuation)
        } catch {
            throw .security("\(error)")
        }

        sendBuffer = .allocate(byteCount: SecureMediaChannel.bufferCapacity, alignment: 16)
        rtcpBuffer = .allocate(byteCount: SecureMediaChannel.bufferCapacity, alignment: 16)
        receivedPayload = .allocate(byteCount: configuration.jitterBuffer.maximumPayload, alignment: 16)
        pending = .allocate(capacity: frameSamples + tickSamples)
        pending.initialize(repeating: 0)
        localFrame = .allocate(capacity: tickSamples)
        localFrame.initialize(repeating: 0)
        // Up to 120 ms per decoded packet, plus what is left over from the previous tick; a
        // session that does not decode keeps only the count of samples, not the samples.
        decoded = .allocate(capacity: configuration.decodesAudio ? rate * 120 / 1000 : 1)
        decoded.initialize(repeating: 0)
        playout = .allocate(capacity: configuration.decodesAudio ? rate * 240 / 1000 : 1)
        playout.initialize(repeating: 0)
    }

    deinit {
        sendBuffer.deallocate()
        rtcpBuffer.deallocate()
        receivedPayload.deallocate()
        pending.deallocate()
        localFrame.deallocate()
        decoded.deallocate()
        playout.deallocate()
    }

    /// The receive side, under its lock. Hold it for moments: the network thread waits on it.
    private func withReceiver<Result: Sendable>(_ body: (MediaReceiver) -> Result) -> Result {
        receiveLock.withLock { _ in body(receiver) }
    }

    // MARK: Control

    /// Starts the DTLS handshake and joins `clock`, which ticks the session from now on.
    package func start(on clock: MediaClock = .shared) {
        let first = clockLock.withLock { _ in
            let first = !started
            started = true
            return first
        }
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
            guard !stopped else { return }
            sender = nil
            nextRTCP = nil
            let running = started
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

    /// Sends the first flight of a channel `replaceSecurity` left waiting (and anything the
    /// transport refused); nothing before the session started.
    package func startHandshake() {
        let running = clockLock.withLock { _ in started && !stopped }
        guard running else { return }
        withReceiver { $0.channel.start() }
    }

    /// Sends RTCP BYE, leaves the clock, closes the sink and ends `events`.
    package func stop(clock: MediaClock = .shared) {
        clock.remove(self)
        clockLock.withLock { _ in
            guard !stopped else { return }
            stopped = true
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
    package var opusComplexity: Int? { clockLock.withLock { _ in (encoder as? OpusEncoder)?.complexity } }

    // MARK: Receive path (network thread)

    /// Entry point for every datagram the transport receives (except STUN), on its thread.
    package func receive(_ datagram: UnsafeRawBufferPointer) {
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
            guard started, !stopped else { return }
            complexityCeiling = encoderComplexityCeiling
            // A moment under the receive side's lock: DTLS timers until keys exist, then the
            // sending half taken once; whether media stopped coming; whether RFC 4733 events did.
            withReceiver { receiver in
                if sender == nil, let taken = receiver.pollSecurity(now: now) {
                    sender = taken
                    nextRTCP = now + .milliseconds(500)
                }
                receiver.checkDisruption(now: now, expectingMedia: !onHold)
                if receiver.telephoneEventsArrived { inBandDetector = nil }
            }
            capture()
        }
    }

    /// The second half of a step: what arrived decoded and played out, RTCP when it is due.
    package func playOut(now: ContinuousClock.Instant) {
        clockLock.withLock { _ in
            guard started, !stopped else { return }
            play()
            if let nextRTCP, now >= nextRTCP {
                self.nextRTCP = now + configuration.rtcpInterval
                sendReports(goodbye: false)
            }
        }
    }

    private func play() {
        if playedFrame {
            // Drop the frame played last tick; keep what the decoder gave beyond it.
            let left = playoutCount - tickSamples
            if left > 0 { playout.baseAddress!.update(from: playout.baseAddress!.advanced(by: tickSamples), count: left) }
            playoutCount = max(0, left)
        }
        // A session that does not decode counts its playout and never sets `playedFrame`.
        guard let decoder else {
            countPlayout()
            return
        }
        var iterations = 0
        while playoutCount < tickSamples && iterations < 8 {
            iterations += 1
            var produced = 0
            var concealed = false
            let step = withReceiver { $0.popFrame(copyingTo: receivedPayload, wantsNext: decoder.canRecoverFromNextPacket) }
            switch step {
            case .frame(let length):
                let payload = UnsafeRawBufferPointer(rebasing: receivedPayload[0..<length])
                produced = (try? decoder.decode(payload, into: decoded)) ?? 0
                if produced == 0 {
                    produced = conceal(remoteFrameSamples)
                    concealed = true
                }
                everPlayed = true
                concealedInARow = 0
            case .lost(let nextLength):
                let target = UnsafeMutableBufferPointer(rebasing: decoded[0..<remoteFrameSamples])
                if let nextLength {
                    let next = UnsafeRawBufferPointer(rebasing: receivedPayload[0..<nextLength])
                    produced = (try? decoder.recover(lostBefore: next, into: target)) ?? 0
                }
                if produced == 0 { produced = conceal(remoteFrameSamples) }
                concealed = true
            case .buffering:
                // Stretch the last audio over an underrun for a few frames, then play silence.
                if everPlayed && concealedInARow < 10 {
                    concealedInARow += 1
                    produced = conceal(remoteFrameSamples)
                    concealed = true
                } else {
                    let missing = tickSamples - playoutCount
                    playout.baseAddress!.advanced(by: playoutCount).update(repeating: 0, count: missing)
                    playoutCount += missing
                    iterations = 8
                }
            }
            if concealed { concealedSamples += produced }
            let room = playout.count - playoutCount
            let count = min(produced, room)
            if count > 0 {
                playout.baseAddress!.advanced(by: playoutCount).update(from: decoded.baseAddress!, count: count)
                playoutCount += count
            }
        }
        if onHold { playout.baseAddress!.update(repeating: 0, count: tickSamples) }
        let remote = UnsafeBufferPointer(rebasing: playout[0..<tickSamples])
        sink.write(remote: remote, local: UnsafeBufferPointer(localFrame))
        totalSamplesPlayed += tickSamples
        if watchingFirstAudible, remote.contains(where: { $0 != 0 }) {
            watchingFirstAudible = false
            let packetsReceived = withReceiver { $0.packetsReceived }
            continuation.yield(.firstAudiblePlayed(at: .now, packetsReceived: packetsReceived))
        }
        if var detector = inBandDetector {
            if let digit = detector.process(remote) {
                inBandDigitsReceived += 1
                continuation.yield(.dtmf(digit, inBand: true))
            }
            inBandDetector = detector
        }
        playedFrame = true
    }

    /// `play` for a session that does not decode: the jitter buffer is drained on the same
    /// schedule, and a frame that would have been concealed is counted as concealed, so the
    /// statistics read as if the audio had been played.
    private func countPlayout() {
        var iterations = 0
        while playoutCount < tickSamples && iterations < 8 {
            iterations += 1
            switch withReceiver({ $0.popFrame(copyingTo: nil, wantsNext: false) }) {
            case .frame:
                playoutCount += remoteFrameSamples
                everPlayed = true
                concealedInARow = 0
            case .lost:
                playoutCount += remoteFrameSamples
                concealedSamples += remoteFrameSamples
            case .buffering:
                if everPlayed && concealedInARow < 10 {
                    concealedInARow += 1
                    playoutCount += remoteFrameSamples
                    concealedSamples += remoteFrameSamples
                } else {
                    playoutCount = tickSamples
                    iterations = 8
                }
            }
        }
        totalSamplesPlayed += tickSamples
        playoutCount = max(0, playoutCount - tickSamples)
    }

    private func conceal(_ samples: Int) -> Int {
        (try? decoder?.conceal(into: UnsafeMutableBufferPointer(rebasing: decoded[0..<samples]))) ?? 0
    }

    private func capture() {
        let frame = UnsafeMutableBufferPointer(rebasing: pending[pendingCount..<(pendingCount + tickSamples)])
        _ = source.read(into: frame)
        if muted { frame.update(repeating: 0) }
        localFrame.baseAddress!.update(from: frame.baseAddress!, count: tickSamples)
        pendingCount += tickSamples
        while pendingCount >= frameSamples {
            sendFrame(UnsafeBufferPointer(rebasing: pending[0..<frameSamples]))
            let left = pendingCount - frameSamples
            if left > 0 { pending.baseAddress!.update(from: pending.baseAddress!.advanced(by: frameSamples), count: left) }
            pendingCount = left
        }
    }

    private func sendFrame(_ pcm: UnsafeBufferPointer<Int16>) {
        defer { timestamp &+= UInt32(frameTimestampUnits) }
        // No keys, no media: nothing leaves before DTLS (or SDES) has secured the channel.
        guard sender != nil else { return }
        guard !sendingPaused else {
            previousWasDTX = true
            return
        }
        if let eventPayloadType = configuration.telephoneEventPayloadType,
            let event = dtmfSender.step(timestamp: timestamp, frameSamples: frameTimestampUnits)
        {
            let fields = RTPHeaderFields(marker: event.marker, payloadType: eventPayloadType, sequenceNumber: sequenceNumber, timestamp: event.timestamp, ssrc: configuration.localSSRC)
            guard let start = try? RTPPacketWriter.writeHeader(fields, into: sendBuffer) else {
                sendFailures += 1
                return
            }
            event.event.write(into: UnsafeMutableRawBufferPointer(rebasing: sendBuffer[start..<(start + 4)]))
            transmit(length: start + 4, payloadLength: 4, payloadType: eventPayloadType)
            return
        }
        let headerLength = RTPPacket.fixedHeaderLength
        let payloadArea = UnsafeMutableRawBufferPointer(rebasing: sendBuffer[headerLength..<1400])
        guard let payloadLength = encode(pcm, into: payloadArea) else {
            sendFailures += 1
            return
        }
        guard payloadLength > 0 else {
            previousWasDTX = true
            return
        }
        // Marker on the first packet of a talkspurt (RFC 3551 §4.1).
        let fields = RTPHeaderFields(
            marker: !sentFirstPacket || previousWasDTX, payloadType: configuration.codec.payloadType, sequenceNumber: sequenceNumber,
            timestamp: timestamp, ssrc: configuration.localSSRC)
        guard (try? RTPPacketWriter.writeHeader(fields, into: sendBuffer)) == headerLength else {
            sendFailures += 1
            return
        }
        previousWasDTX = false
        sentFirstPacket = true
        transmit(length: headerLength + payloadLength, payloadLength: payloadLength, payloadType: configuration.codec.payloadType)
    }

    /// The frame's payload: pre-encoded by the source when it can, else from our encoder (made
    /// now if this is the first frame that needs it). Nil when the frame cannot be encoded.
    private func encode(_ pcm: UnsafeBufferPointer<Int16>, into payload: UnsafeMutableRawBufferPointer) -> Int? {
        if !muted, let encodedFormat, let encodedSource, let length = encodedSource.encodedFrame(encodedFormat, into: payload) {
            preEncodedFramesSent += 1
            return length
        }
        if encoder == nil, !encoderFailed {
            encoder = try? ownFormat.makeEncoder()
            encoderFailed = encoder == nil
        }
        if configuration.followsClockComplexity { encoder?.limitComplexity(to: complexityCeiling) }
        return try? encoder?.encode(pcm, into: payload)
    }

    private func transmit(length: Int, payloadLength: Int, payloadType: UInt8) {
        sequenceNumber &+= 1
        if sender?.send(sendBuffer, length: length, isRTCP: false) == true {
            packetsSent += 1
            bytesSent += payloadLength
            if sentPayloadTypes.insert(payloadType) {
                continuation.yield(.firstRTPSent(payloadType: payloadType))
            }
        } else {
            sendFailures += 1
        }
    }

    /// SR (or RR before we have sent anything) with a block about the peer, SDES CNAME, and BYE
    /// when leaving (RFC 3550 §6.1 compound).
    private func sendReports(goodbye: Bool) {
        guard let sender else { return }
        var writer = RTCPWriter(UnsafeMutableRawBufferPointer(rebasing: rtcpBuffer[0..<1200]))
        let about = withReceiver { $0.makeReportBlock() }
        var block = about ?? ReportBlock(ssrc: 0)
        let blockCount = about == nil ? 0 : 1
        let reportWritten = withUnsafePointer(to: &block) { pointer -> Bool in
            let blocks = UnsafeBufferPointer(start: pointer, count: blockCount)
            if packetsSent > 0 {
                let info = SenderInfo(
                    ntpTimestamp: Self.wallClockNTP(), rtpTimestamp: timestamp, packetCount: UInt32(truncatingIfNeeded: packetsSent),
                    octetCount: UInt32(truncatingIfNeeded: bytesSent))
                return (try? writer.senderReport(ssrc: configuration.localSSRC, info: info, blocks: blocks)) != nil
            }
            return (try? writer.receiverReport(ssrc: configuration.localSSRC, blocks: blocks)) != nil
        }
        let cnameWritten = cname.withUnsafeBytes { bytes in
            (try? writer.sourceDescription(ssrc: configuration.localSSRC, cname: bytes)) != nil
        }
        guard reportWritten, cnameWritten else { return }
        if goodbye { try? writer.goodbye(ssrc: configuration.localSSRC) }
        sender.send(rtcpBuffer, length: writer.length, isRTCP: true)
    }

    static func wallClockNTP() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return NTPTime.timestamp(unixSeconds: UInt64(now.tv_sec), nanoseconds: UInt64(now.tv_nsec))
    }

    static func level(_ samples: UnsafeBufferPointer<Int16>) -> Double {
        guard !samples.isEmpty else { return 0 }
        var sum = 0.0
        for sample in samples { sum += Double(sample) * Double(sample) }
        return (sum / Double(samples.count)).squareRoot() / 32768
    }

    // MARK: Statistics

    /// One snapshot of both sides: the clock side's lock is held while the receive side's is
    /// taken, so what was sent and played and what was received are of the same moment.
    package func statistics() -> MediaStatistics {
        clockLock.withLock { _ in
            // The level meters read whole frames: measured before the receive side's lock is
            // taken, so that no packet waits for them.
            let audioLevel = playedFrame ? Self.level(UnsafeBufferPointer(rebasing: playout[0..<tickSamples])) : 0
            let localAudioLevel = Self.level(UnsafeBufferPointer(localFrame))
            return withReceiver { receiver in
                let channel = receiver.channel!
                let profile: String? = if case .secure(let profile) = channel.state { profile.rawValue } else { nil }
                return MediaStatistics(
                    codec: configuration.codec.name, payloadType: Int(configuration.codec.payloadType), packetsSent: packetsSent, bytesSent: bytesSent,
                    packetsReceived: receiver.packetsReceived, bytesReceived: receiver.bytesReceived, packetsLost: receiver.packetsLost,
                    jitterMs: receiver.jitterMilliseconds, rttMs: receiver.roundTripTime.map { $0 * 1000 }, remotePacketsLost: receiver.remotePacketsLost,
                    concealedSamples: concealedSamples, totalSamplesPlayed: totalSamplesPlayed, jitterBufferDelayMs: receiver.jitterBufferDelayMilliseconds,
                    jitterBufferTargetMs: receiver.jitterBufferTargetMilliseconds, latePackets: receiver.jitterBufferCounters.late,
                    duplicatePackets: receiver.jitterBufferCounters.duplicates, audioLevel: audioLevel, localAudioLevel: localAudioLevel, srtpProfile: profile,
                    srtpAuthenticationFailures: channel.counters.authenticationFailures, srtpReplays: channel.counters.replays,
                    dtmfReceived: receiver.eventDigitsReceived + inBandDigitsReceived, muted: muted, sendFailures: sendFailures, preEncodedFramesSent: preEncodedFramesSent,
                    malformedPackets: receiver.malformedPackets, unknownDatagrams: channel.counters.unknownDatagrams,
                    dtlsDatagramsRefused: channel.counters.handshakeDatagramsRefused, fecNegotiated: configuration.codec.usesInbandFEC)
            }
        }
    }
}
