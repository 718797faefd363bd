import Glibc

/// The state a media session's two threads share, and the receive path over it: transport →
/// demux (DTLS or SRTP) → unprotect → parse → reception statistics → jitter buffer, on the
/// network thread. The session keeps it in a `Lock` of its own, which the network thread takes
/// for each datagram and the clock thread only for moments of its tick (taking frames out of the
/// jitter buffer, reading the statistics for a report), never while it encodes, sends, decodes or
/// writes to the sink (docs/performance.md, "The session's two locks").
///
/// Allocates nothing per packet. Not thread-safe by itself.
final class MediaReceiver {
    /// One step of playout, taken out of the jitter buffer under the lock. The bytes it names
    /// were copied to the caller's buffer, because the jitter buffer's own may be overwritten by
    /// the next packet as soon as the lock is released.
    enum PlayoutStep {
        /// The frame's payload, `length` bytes.
        case frame(length: Int)
        /// The frame is missing; when `nextLength` is not nil, the following frame's payload
        /// (for Opus FEC) is there instead.
        case lost(nextLength: Int?)
        case buffering
    }

    private let configuration: MediaSessionConfiguration
    private let continuation: AsyncStream<MediaEvent>.Continuation
    private(set) var channel: SecureMediaChannel!
    private let transport: any MediaTransport
    private let jitterBuffer: JitterBuffer
    private var reception = ReceptionStatistics()
    private var dtmfReceiver = DTMFReceiver()
    private var remoteSSRC: UInt32?
    /// Payload types already reported in a `firstRTPReceived` event.
    private var receivedPayloadTypes = PayloadTypeSet()
    private var securedAt: ContinuousClock.Instant?
    private var lastRTPArrival: ContinuousClock.Instant?
    private var lastRTCPArrival: ContinuousClock.Instant?
    private var disrupted = false
    private var stoppedReported = false
    /// The last tick of a hold: the wait for RTP starts again from there once the hold ends.
    private var heldUntil: ContinuousClock.Instant?
    private var lastSenderReport: (compact: UInt32, arrival: ContinuousClock.Instant)?
    /// Set by the session when it stops: what arrives later is dropped.
    var stopped = false

    private(set) var packetsReceived = 0
    private(set) var bytesReceived = 0
    private(set) var roundTripTime: Double?
    private(set) var remotePacketsLost: Int?
    /// Digits that came as RFC 4733 events (in-band ones are the clock side's).
    private(set) var eventDigitsReceived = 0
    /// From the first RFC 4733 event on, the session's in-band detector stops: a far end that
    /// sends events may also leave the tones in its audio, and no digit may arrive twice.
    private(set) var telephoneEventsArrived = false
    private(set) var malformedPackets = 0

    static let sourceSwitchSilence = Duration.milliseconds(500)

    init(
        configuration: MediaSessionConfiguration, security: MediaSecurity, transport: any MediaTransport,
        continuation: AsyncStream<MediaEvent>.Continuation
    ) throws {
        self.configuration = configuration
        self.continuation = continuation
        jitterBuffer = JitterBuffer(configuration: configuration.jitterBuffer)
        remoteSSRC = configuration.remoteSSRC
        self.transport = transport
        channel = try SecureMediaChannel(security: security, transport: transport) { [weak self] state in
            self?.securityChanged(state)
        }
    }

    /// A new secure channel on the same transport (a new DTLS association): media from the peer
    /// is dropped until its keys exist; the jitter buffer and the statistics go on.
    func replaceChannel(security: MediaSecurity) throws {
        channel = try SecureMediaChannel(security: security, transport: transport) { [weak self] state in
            self?.securityChanged(state)
        }
    }

    // MARK: Network thread

    /// One datagram from the transport (anything but STUN). True when it was RTP or RTCP that
    /// the channel authenticated (or, unencrypted, that parsed): what a transport without ICE
    /// may latch its peer's address on.
    @discardableResult
    func receive(_ datagram: UnsafeRawBufferPointer) -> Bool {
        guard !stopped else { return false }
        switch channel.receive(datagram) {
        case .rtp(let length):
            return handleRTP(UnsafeRawBufferPointer(rebasing: channel.plaintext[0..<length]))
        case .rtcp(let length):
            return handleRTCP(UnsafeRawBufferPointer(rebasing: channel.plaintext[0..<length]))
        case .none:
            return false
        }
    }

    @discardableResult
    private func handleRTP(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let packet = try? RTPPacket.parse(bytes) else {
            malformedPackets += 1
            return false
        }
        let now = ContinuousClock.now
        if packet.ssrc != remoteSSRC {
            // Follow a new source (peer restart, or an SSRC the SDP did not announce) once the
            // current one has been silent for a while; until then the newcomer is ignored.
            if let last = lastRTPArrival, now - last < Self.sourceSwitchSilence { return true }
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
                eventDigitsReceived += 1
                telephoneEventsArrived = true
                continuation.yield(.dtmf(digit, inBand: false))
            }
        } else {
            jitterBuffer.insertPlaceholder(sequence: packet.sequenceNumber)
        }
        return true
    }

    var jitterMilliseconds: Double {
        Double(reception.jitter) * 1000 / Double(configuration.codec.clockRate)
    }

    /// Arrival time in RTP timestamp units (RFC 3550 A.8), from the monotonic clock.
    private func arrivalTimestamp() -> UInt32 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let rate = UInt64(configuration.codec.clockRate)
        let ticks = UInt64(now.tv_sec) &* rate &+ UInt64(now.tv_nsec) &* rate / 1_000_000_000
        return UInt32(truncatingIfNeeded: ticks)
    }

    @discardableResult
    private func handleRTCP(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard var reader = try? RTCPCompoundReader(bytes, requireReportFirst: false) else {
            malformedPackets += 1
            return false
        }
        let arrival = NTPTime.compact(MediaSession.wallClockNTP())
        lastRTCPArrival = .now
        while true {
            let next: RTCPHeader?
            do {
                next = try reader.next()
            } catch {
                // A length or padding that lies: what came before it was used; the rest is dropped.
                malformedPackets += 1
                return true
            }
            guard let header = next else { return true }
            switch header.packetType {
            case RTCPPacketType.senderReport, RTCPPacketType.receiverReport:
                guard let (ssrc, info, count) = try? reader.report(header) else {
                    malformedPackets += 1
                    return true
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

    /// Called by the channel, on whichever thread drove the handshake (under this lock).
    private func securityChanged(_ state: SecureMediaChannel.State) {
        switch state {
        case .secure(let profile):
            securedAt = .now
            continuation.yield(.secured(profile))
        case .unencrypted:
            securedAt = .now
            continuation.yield(.unencrypted)
        case .failed(let error):
            continuation.yield(.securityFailed(error))
        case .negotiating:
            break
        }
    }

    // MARK: Clock thread, for moments of its tick

    /// Keeps the DTLS handshake going (retransmissions, its deadline) and, once keys exist,
    /// hands over the channel's sending half to the clock thread, for good.
    func pollSecurity(now: ContinuousClock.Instant) -> SRTPSender? {
        channel.poll(now: now)
        return channel.takeSender()
    }

    /// Raises `disrupted` once no RTP has come for the configured time since the last packet
    /// (or since the channel was secured, or a hold ended). A held call expects no media.
    func checkDisruption(now: ContinuousClock.Instant, expectingMedia: Bool) {
        guard expectingMedia else {
            heldUntil = now
            return
        }
        checkStopped(now: now)
        guard !disrupted, let last = lastRTPArrival ?? securedAt else { return }
        let since = heldUntil.map { max($0, last) } ?? last
        guard now - since > configuration.disruptionTimeout else { return }
        disrupted = true
        continuation.yield(.disrupted)
    }

    /// Raises `stopped` once neither RTP nor RTCP has come for `rtpTimeout` since the last of
    /// either (or since a hold ended); before anything came, the media timeout of the call
    /// governs instead. Armed again as soon as something arrives.
    private func checkStopped(now: ContinuousClock.Instant) {
        let timeout = configuration.rtpTimeout
        guard timeout > .zero else { return }
        var last = lastRTPArrival
        if let rtcp = lastRTCPArrival, last.map({ rtcp > $0 }) ?? true { last = rtcp }
        guard let last else { return }
        let since = heldUntil.map { max($0, last) } ?? last
        guard now - since > timeout else {
            stoppedReported = false
            return
        }
        guard !stoppedReported else { return }
        stoppedReported = true
        continuation.yield(.stopped)
    }

    /// The next frame from the jitter buffer. With `payload`, the frame's bytes (or, for a lost
    /// frame when `wantsNext`, the following frame's) are copied there; `payload` must hold the
    /// jitter buffer's `maximumPayload`.
    func popFrame(copyingTo payload: UnsafeMutableRawBufferPointer?, wantsNext: Bool) -> PlayoutStep {
        switch jitterBuffer.pop() {
        case .frame(let bytes):
            if let payload { payload.copyMemory(from: bytes) }
            return .frame(length: bytes.count)
        case .lost(let next):
            guard let payload, wantsNext, let next else { return .lost(nextLength: nil) }
            payload.copyMemory(from: next)
            return .lost(nextLength: next.count)
        case .buffering:
            return .buffering
        }
    }

    /// The reception report block about the peer for our next SR or RR; nil before anything
    /// came from it.
    func makeReportBlock() -> ReportBlock? {
        guard let remoteSSRC, reception.received > 0 else { return nil }
        var delay: UInt32 = 0
        var last: UInt32 = 0
        if let lastSenderReport {
            last = lastSenderReport.compact
            let elapsed = ContinuousClock.now - lastSenderReport.arrival
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            delay = UInt32(clamping: Int(seconds * 65536))
        }
        return reception.makeReportBlock(ssrc: remoteSSRC, lastSenderReport: last, delaySinceLastSenderReport: delay)
    }

    // MARK: Statistics

    var packetsLost: Int { Int(max(0, reception.cumulativeLost)) }
    var jitterBufferDelayMilliseconds: Double { jitterBuffer.averageDelayMilliseconds }
    var jitterBufferTargetMilliseconds: Int { jitterBuffer.targetDelayMilliseconds }
    var jitterBufferCounters: JitterBuffer.Counters { jitterBuffer.counters }
}
