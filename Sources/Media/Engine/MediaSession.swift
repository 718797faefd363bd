import Foundation
import Glibc
import Synchronization

/// One call's audio: receive (transport → demux → unprotect → parse → jitter buffer) on the
/// network thread, and once per media clock tick: jitter buffer → decode → sink, then source →
/// encode → packetize → protect → transport. All buffers are allocated here, up front; the packet
/// paths allocate nothing and take no actor hop. A lock serialises the two threads.
package final class MediaSession: @unchecked Sendable {
    package let configuration: MediaSessionConfiguration
    package let events: AsyncStream<MediaEvent>
    /// Samples per 20 ms clock tick at the session rate.
    let tickSamples: Int

    private let lock = Mutex(())
    private let continuation: AsyncStream<MediaEvent>.Continuation
    private var channel: SecureMediaChannel!
    /// Made on the first frame that needs it: a session whose source hands it pre-encoded frames
    /// (a bot's cached prompts) may never run an encoder of its own.
    private var encoder: (any AudioEncoder)?
    private let encodedSource: (any EncodedAudioSource)?
    /// The format of our frames, when a pre-encoded source can serve them: frames as long as a
    /// clock tick, so every frame is exactly one `read` of the source.
    private let encodedFormat: EncodedFrameFormat?
    private var encoderFailed = false
    private var preEncodedFramesSent = 0
    /// Nil when the configuration says not to decode (`decodesAudio` false).
    private let decoder: (any AudioDecoder)?
    private let source: any AudioSource
    private let sink: any AudioSink
    private let jitterBuffer: JitterBuffer
    private let dtmfSender: DTMFSender
    private var dtmfReceiver = DTMFReceiver()
    private var inBandDetector: InBandDTMFDetector?
    private var reception = ReceptionStatistics()

    private let frameSamples: Int
    private let remoteFrameSamples: Int
    private let sendBuffer: UnsafeMutableRawBufferPointer
    private let rtcpBuffer: UnsafeMutableRawBufferPointer
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
    private var remoteSSRC: UInt32?
    private var started = false
    private var stopped = false
    private var muted = false
    private var sendingPaused = false
    private var sentFirstPacket = false
    private var previousWasDTX = false
    private var everPlayed = false
    /// Set from `watchesFirstAudible`; off once `firstAudiblePlayed` was raised.
    private var watchingFirstAudible = false
    /// Payload types already reported in a `firstRTPSent`/`firstRTPReceived` event.
    private var sentPayloadTypes = PayloadTypeSet()
    private var receivedPayloadTypes = PayloadTypeSet()
    private var concealedInARow = 0
    private var securedAt: ContinuousClock.Instant?
    private var lastRTPArrival: ContinuousClock.Instant?
    private var disrupted = false
    private var nextRTCP: ContinuousClock.Instant?
    private var lastSenderReport: (compact: UInt32, arrival: ContinuousClock.Instant)?

    private var packetsSent = 0
    private var bytesSent = 0
    private var packetsReceived = 0
    private var bytesReceived = 0
    private var concealedSamples = 0
    private var totalSamplesPlayed = 0
    private var roundTripTime: Double?
    private var remotePacketsLost: Int?
    private var dtmfReceived = 0
    private var malformedPackets = 0

    static let sourceSwitchSilence = Duration.milliseconds(500)

    package init(
        configuration: MediaSessionConfiguration, security: MediaSecurity, transport: any MediaTransport,
        source: any AudioSource, sink: any AudioSink
    ) throws(MediaSessionError) {
        guard [10, 20, 40, 60].contains(configuration.frameMilliseconds) else { throw .unsupportedPacketTime(configuration.frameMilliseconds) }
        self.configuration = configuration
        let rate = configuration.codec.sampleRate
        do {
            switch configuration.codec {
            case _ where !configuration.decodesAudio:
                decoder = nil
            case .opus:
                decoder = try OpusDecoder()
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
        remoteFrameSamples = configuration.jitterBuffer.frameMilliseconds * rate / 1000
        self.source = source
        self.sink = sink
        encodedSource = source as? any EncodedAudioSource
        encodedFormat = frameSamples == tickSamples ? EncodedFrameFormat(codec: configuration.codec, frameMilliseconds: configuration.frameMilliseconds) : nil
        if encodedSource == nil {
            do {
                encoder = try EncodedFrameFormat(codec: configuration.codec, frameMilliseconds: configuration.frameMilliseconds).makeEncoder()
            } catch {
                throw .codec(error)
            }
        }
        jitterBuffer = JitterBuffer(configuration: configuration.jitterBuffer)
        dtmfSender = DTMFSender(clockRate: rate, durationMilliseconds: configuration.dtmfDurationMilliseconds, volume: configuration.dtmfVolume)
        if configuration.runsInBandDTMFDetector { inBandDetector = InBandDTMFDetector(sampleRate: rate) }
        watchingFirstAudible = configuration.watchesFirstAudible
        remoteSSRC = configuration.remoteSSRC
        cname = Array(configuration.cname.utf8.prefix(255))

        sendBuffer = .allocate(byteCount: SecureMediaChannel.bufferCapacity, alignment: 16)
        rtcpBuffer = .allocate(byteCount: SecureMediaChannel.bufferCapacity, alignment: 16)
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

        (events, continuation) = AsyncStream<MediaEvent>.makeStream(bufferingPolicy: .bufferingNewest(256))
        do {
            channel = try SecureMediaChannel(security: security, transport: transport) { [weak self] state in
                self?.securityChanged(state)
            }
        } catch {
            throw .security("\(error)")
        }
    }

    deinit {
        sendBuffer.deallocate()
        rtcpBuffer.deallocate()
        pending.deallocate()
        localFrame.deallocate()
        decoded.deallocate()
        playout.deallocate()
    }

    // MARK: Control

    /// Starts the DTLS handshake and joins `clock`, which ticks the session from now on.
    package func start(on clock: MediaClock = .shared) {
        let first = lock.withLock { _ in
            let first = !started
            started = true
            if first { channel.start() }
            return first
        }
        if first { clock.add(self) }
    }

    /// Sends RTCP BYE, leaves the clock, closes the sink and ends `events`.
    package func stop(clock: MediaClock = .shared) {
        clock.remove(self)
        lock.withLock { _ in
            guard !stopped else { return }
            stopped = true
            sendReports(goodbye: true)
            sink.close()
            continuation.finish()
        }
    }

    /// Muted sessions send silence (keeping RTP, RTCP and NAT bindings alive).
    package var isMuted: Bool {
        get { lock.withLock { _ in muted } }
        set { lock.withLock { _ in muted = newValue } }
    }

    /// Queues RFC 4733 digits (0-9 * # A-D). Needs a negotiated telephone-event payload type.
    package func sendDTMF(_ digits: String) throws(MediaSessionError) {
        guard configuration.telephoneEventPayloadType != nil else { throw .invalidDTMF("\(digits) (no telephone-event negotiated)") }
        let queued = lock.withLock { _ in dtmfSender.enqueue(digits) }
        guard queued else { throw .invalidDTMF(digits) }
    }

    /// Paused sessions send no RTP at all (hold: a=sendonly/inactive), only RTCP; the source
    /// keeps being read so it resumes in time. The first packet after a pause carries the marker.
    package var isSendingPaused: Bool {
        get { lock.withLock { _ in sendingPaused } }
        set { lock.withLock { _ in sendingPaused = newValue } }
    }

    var isSecure: Bool { lock.withLock { _ in channel.isSecure } }

    // MARK: Receive path (network thread)

    /// Entry point for every datagram the transport receives (except STUN), on its thread.
    package func receive(_ datagram: UnsafeRawBufferPointer) {
        lock.withLock { _ in receiveLocked(datagram) }
    }

    private func receiveLocked(_ datagram: UnsafeRawBufferPointer) {
        guard !stopped else { return }
        switch channel.receive(datagram) {
        case .rtp(let length):
            handleRTP(UnsafeRawBufferPointer(rebasing: channel.plaintext[0..<length]))
        case .rtcp(let length):
            handleRTCP(UnsafeRawBufferPointer(rebasing: channel.plaintext[0..<length]))
        case .none:
            break
        }
    }

    private func handleRTP(_ bytes: UnsafeRawBufferPointer) {
        guard let packet = try? RTPPacket.parse(bytes) else {
            malformedPackets += 1
            return
        }
        let now = ContinuousClock.now
        if packet.ssrc != remoteSSRC {
            // Follow a new source (peer restart, or an SSRC the SDP did not announce) once the
            // current one has been silent for a while; until then the newcomer is ignored.
            if let last = lastRTPArrival, now - last < Self.sourceSwitchSilence { return }
            remoteSSRC = packet.ssrc
            reception = ReceptionStatistics()
            jitterBuffer.reset()
            dtmfReceiver = DTMFReceiver()
        }
        lastRTPArrival = now
        if disrupted {
            disrupted = false
            continuation.yield(.restored)
        }
        packetsReceived += 1
        bytesReceived += packet.payloadLength
        if packetsReceived == 1 { continuation.yield(.firstPacketArrived(at: now)) }
        if receivedPayloadTypes.insert(packet.payloadType) {
            continuation.yield(.firstRTPReceived(payloadType: packet.payloadType))
        }
        reception.record(sequence: packet.sequenceNumber, rtpTimestamp: packet.timestamp, arrival: arrivalTimestamp())
        let payload = UnsafeRawBufferPointer(rebasing: bytes[packet.payloadRange])
        if packet.payloadType == configuration.codec.payloadType {
            _ = jitterBuffer.insert(sequence: packet.sequenceNumber, payload: payload)
            jitterBuffer.updateTarget(jitterMilliseconds: jitterMilliseconds)
        } else if configuration.receivedTelephoneEventPayloadTypes.contains(packet.payloadType) {
            jitterBuffer.insertPlaceholder(sequence: packet.sequenceNumber)
            if let event = try? TelephoneEvent.parse(payload), let digit = dtmfReceiver.receive(event, timestamp: packet.timestamp) {
                dtmfReceived += 1
                // A far end that sends RFC 4733 events may also leave the tones in its audio:
                // from its first event on, only the events count, so no digit arrives twice.
                inBandDetector = nil
                continuation.yield(.dtmf(digit, inBand: false))
            }
        } else {
            jitterBuffer.insertPlaceholder(sequence: packet.sequenceNumber)
        }
    }

    private var jitterMilliseconds: Double {
        Double(reception.jitter) * 1000 / Double(configuration.codec.sampleRate)
    }

    /// Arrival time in RTP timestamp units (RFC 3550 A.8), from the monotonic clock.
    private func arrivalTimestamp() -> UInt32 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let rate = UInt64(configuration.codec.sampleRate)
        let ticks = UInt64(now.tv_sec) &* rate &+ UInt64(now.tv_nsec) &* rate / 1_000_000_000
        return UInt32(truncatingIfNeeded: ticks)
    }

    private func handleRTCP(_ bytes: UnsafeRawBufferPointer) {
        guard var reader = try? RTCPCompoundReader(bytes, requireReportFirst: false) else {
            malformedPackets += 1
            return
        }
        let arrival = NTPTime.compact(Self.wallClockNTP())
        while true {
            let next: RTCPHeader?
            do {
                next = try reader.next()
            } catch {
                // A length or padding that lies: what came before it was used; the rest is dropped.
                malformedPackets += 1
                return
            }
            guard let header = next else { return }
            switch header.packetType {
            case RTCPPacketType.senderReport, RTCPPacketType.receiverReport:
                guard let (ssrc, info, count) = try? reader.report(header) else {
                    malformedPackets += 1
                    return
                }
                if let info, ssrc == remoteSSRC { lastSenderReport = (info.compactNTP, .now) }
                for index in 0..<count {
                    let block = reader.reportBlock(header, index: index)
                    guard block.ssrc == configuration.localSSRC else { continue }
                    remotePacketsLost = Int(block.cumulativeLost)
                    if let rtt = NTPTime.roundTripTime(arrival: arrival, lastSenderReport: block.lastSenderReport, delaySinceLastSenderReport: block.delaySinceLastSenderReport) {
                        roundTripTime = rtt
                    }
                }
            case RTCPPacketType.goodbye:
                continuation.yield(.remoteGoodbye)
            default:
                break
            }
        }
    }

    private func securityChanged(_ state: SecureMediaChannel.State) {
        switch state {
        case .secure(let profile):
            securedAt = .now
            nextRTCP = .now + .milliseconds(500)
            continuation.yield(.secured(profile))
        case .failed(let error):
            continuation.yield(.securityFailed(error))
        case .negotiating:
            break
        }
    }

    // MARK: Clock path

    /// One 20 ms step: play what arrived, send what the source gives, keep DTLS and RTCP going.
    package func tick(now: ContinuousClock.Instant = .now) {
        lock.withLock { _ in tickLocked(now: now) }
    }

    private func tickLocked(now: ContinuousClock.Instant) {
        guard started, !stopped else { return }
        channel.poll(now: now)
        // Send first: the frame leaves as close to the tick as it can; playout has the jitter
        // buffer's slack.
        capture()
        play()
        checkDisruption(now: now)
        if let nextRTCP, now >= nextRTCP {
            self.nextRTCP = now + configuration.rtcpInterval
            sendReports(goodbye: false)
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
            switch jitterBuffer.pop() {
            case .frame(let payload):
                produced = (try? decoder.decode(payload, into: decoded)) ?? 0
                if produced == 0 {
                    produced = conceal(remoteFrameSamples)
                    concealed = true
                }
                everPlayed = true
                concealedInARow = 0
            case .lost(let next):
                let target = UnsafeMutableBufferPointer(rebasing: decoded[0..<remoteFrameSamples])
                if let next, decoder.canRecoverFromNextPacket {
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
        let remote = UnsafeBufferPointer(rebasing: playout[0..<tickSamples])
        sink.write(remote: remote, local: UnsafeBufferPointer(localFrame))
        totalSamplesPlayed += tickSamples
        if watchingFirstAudible, remote.contains(where: { $0 != 0 }) {
            watchingFirstAudible = false
            continuation.yield(.firstAudiblePlayed(at: .now, packetsReceived: packetsReceived))
        }
        if var detector = inBandDetector {
            if let digit = detector.process(remote) {
                dtmfReceived += 1
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
            switch jitterBuffer.pop() {
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
        defer { timestamp &+= UInt32(frameSamples) }
        // No keys, no media: nothing leaves before DTLS (or SDES) has secured the channel.
        guard channel.isSecure else { return }
        guard !sendingPaused else {
            previousWasDTX = true
            return
        }
        if let eventPayloadType = configuration.telephoneEventPayloadType,
            let event = dtmfSender.step(timestamp: timestamp, frameSamples: frameSamples)
        {
            let fields = RTPHeaderFields(marker: event.marker, payloadType: eventPayloadType, sequenceNumber: sequenceNumber, timestamp: event.timestamp, ssrc: configuration.localSSRC)
            guard let start = try? RTPPacketWriter.writeHeader(fields, into: sendBuffer) else { return }
            event.event.write(into: UnsafeMutableRawBufferPointer(rebasing: sendBuffer[start..<(start + 4)]))
            transmit(length: start + 4, payloadLength: 4, payloadType: eventPayloadType)
            return
        }
        let headerLength = RTPPacket.fixedHeaderLength
        let payloadArea = UnsafeMutableRawBufferPointer(rebasing: sendBuffer[headerLength..<1400])
        guard let payloadLength = encode(pcm, into: payloadArea) else { return }
        guard payloadLength > 0 else {
            previousWasDTX = true
            return
        }
        // Marker on the first packet of a talkspurt (RFC 3551 §4.1).
        let fields = RTPHeaderFields(
            marker: !sentFirstPacket || previousWasDTX, payloadType: configuration.codec.payloadType, sequenceNumber: sequenceNumber,
            timestamp: timestamp, ssrc: configuration.localSSRC)
        guard (try? RTPPacketWriter.writeHeader(fields, into: sendBuffer)) == headerLength else { return }
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
            encoder = try? EncodedFrameFormat(codec: configuration.codec, frameMilliseconds: configuration.frameMilliseconds).makeEncoder()
            encoderFailed = encoder == nil
        }
        return try? encoder?.encode(pcm, into: payload)
    }

    private func transmit(length: Int, payloadLength: Int, payloadType: UInt8) {
        sequenceNumber &+= 1
        if channel.send(sendBuffer, length: length, isRTCP: false) {
            packetsSent += 1
            bytesSent += payloadLength
            if sentPayloadTypes.insert(payloadType) {
                continuation.yield(.firstRTPSent(payloadType: payloadType))
            }
        }
    }

    private func checkDisruption(now: ContinuousClock.Instant) {
        guard !disrupted, let since = lastRTPArrival ?? securedAt, now - since > configuration.disruptionTimeout else { return }
        disrupted = true
        continuation.yield(.disrupted)
    }

    /// SR (or RR before we have sent anything) with a block about the peer, SDES CNAME, and BYE
    /// when leaving (RFC 3550 §6.1 compound).
    private func sendReports(goodbye: Bool) {
        guard channel.isSecure else { return }
        var writer = RTCPWriter(UnsafeMutableRawBufferPointer(rebasing: rtcpBuffer[0..<1200]))
        var block = ReportBlock(ssrc: 0)
        var blockCount = 0
        if let remoteSSRC, reception.received > 0 {
            var delay: UInt32 = 0
            var last: UInt32 = 0
            if let lastSenderReport {
                last = lastSenderReport.compact
                let elapsed = ContinuousClock.now - lastSenderReport.arrival
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                delay = UInt32(clamping: Int(seconds * 65536))
            }
            block = reception.makeReportBlock(ssrc: remoteSSRC, lastSenderReport: last, delaySinceLastSenderReport: delay)
            blockCount = 1
        }
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
        channel.send(rtcpBuffer, length: writer.length, isRTCP: true)
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

    package func statistics() -> MediaStatistics {
        lock.withLock { _ in statisticsLocked() }
    }

    private func statisticsLocked() -> MediaStatistics {
        let profile: String? = if case .secure(let profile) = channel.state { profile.rawValue } else { nil }
        return MediaStatistics(
            codec: configuration.codec.name, payloadType: Int(configuration.codec.payloadType), packetsSent: packetsSent, bytesSent: bytesSent,
            packetsReceived: packetsReceived, bytesReceived: bytesReceived, packetsLost: Int(max(0, reception.cumulativeLost)),
            jitterMs: jitterMilliseconds, rttMs: roundTripTime.map { $0 * 1000 }, remotePacketsLost: remotePacketsLost,
            concealedSamples: concealedSamples, totalSamplesPlayed: totalSamplesPlayed, jitterBufferDelayMs: jitterBuffer.averageDelayMilliseconds,
            jitterBufferTargetMs: jitterBuffer.targetDelayMilliseconds, latePackets: jitterBuffer.counters.late,
            duplicatePackets: jitterBuffer.counters.duplicates, audioLevel: playedFrame ? Self.level(UnsafeBufferPointer(rebasing: playout[0..<tickSamples])) : 0,
            localAudioLevel: Self.level(UnsafeBufferPointer(localFrame)), srtpProfile: profile,
            srtpAuthenticationFailures: channel.counters.authenticationFailures, srtpReplays: channel.counters.replays,
            dtmfReceived: dtmfReceived, muted: muted, preEncodedFramesSent: preEncodedFramesSent,
            malformedPackets: malformedPackets, unknownDatagrams: channel.counters.unknownDatagrams,
            dtlsDatagramsRefused: channel.counters.handshakeDatagramsRefused, fecNegotiated: configuration.codec.usesInbandFEC)
    }
}
