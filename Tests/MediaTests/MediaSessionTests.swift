import Foundation
import Media
import SDP
import TestSupport
import Testing
import Locking

/// Test sink: keeps what it is given in preallocated storage.
final class CapturingSink: AudioSink, @unchecked Sendable {
    private let storage: Lock<(samples: [Int16], count: Int)>

    /// Taken by every write, as a sink that is slow to take a frame (a busy disk, a program).
    private let writeDelay: useconds_t

    init(capacity: Int, writeDelayMilliseconds: Int = 0) {
        storage = Lock(([Int16](repeating: 0, count: capacity), 0))
        writeDelay = useconds_t(writeDelayMilliseconds * 1000)
    }

    func write(remote: UnsafeBufferPointer<Int16>, local: UnsafeBufferPointer<Int16>) {
        if writeDelay > 0 { usleep(writeDelay) }
        storage.withLock { storage in
            for sample in remote where storage.count < storage.samples.count {
                storage.samples[storage.count] = sample
                storage.count += 1
            }
        }
    }

    func close() {}

    var captured: [Int16] { storage.withLock { Array($0.samples.prefix($0.count)) } }
    var capturedCount: Int { storage.withLock { $0.count } }
}

/// Collects a session's events as they arrive.
final class EventLog: Sendable {
    private let items = Lock<[MediaEvent]>([])

    init(_ session: MediaSession) {
        Task { [self] in
            for await event in session.events { items.withLock { $0.append(event) } }
        }
    }

    var events: [MediaEvent] { items.withLock { $0 } }
    var digits: String { String(events.compactMap { if case .dtmf(let digit, _) = $0 { digit.character } else { nil } }) }
}

/// Two media sessions calling each other over real UDP on 127.0.0.1, ticked by one media clock.
final class SessionPair {
    let clock: MediaClock
    let network = LoopbackNetwork()
    let socketA: LoopbackSocket
    let socketB: LoopbackSocket
    let a: MediaSession
    let b: MediaSession
    let sinkA: CapturingSink
    let sinkB: CapturingSink
    let eventsA: EventLog
    let eventsB: EventLog

    init(
        codec: MediaCodec, telephoneEvent: UInt8? = nil, sourceA: any AudioSource, sourceB: any AudioSource, secure: Bool = true,
        wrongFingerprintForB: Bool = false, disruptionTimeout: Duration = .seconds(2), remoteSSRCForB: UInt32? = nil,
        bDecodes: Bool = true, clockPhase: Double = 0, playoutDelayBMilliseconds: Int = 0,
        adjustB: (inout MediaSessionConfiguration) -> Void = { _ in }
    ) throws {
        clock = MediaClock(phase: clockPhase)
        socketA = try LoopbackSocket()
        socketB = try LoopbackSocket()
        socketA.connect(to: socketB)
        socketB.connect(to: socketA)
        let identityA = try DTLSIdentity.generate()
        let identityB = try DTLSIdentity.generate()
        let securityA: MediaSecurity
        let securityB: MediaSecurity
        if secure {
            let expectedByB = wrongFingerprintForB ? try DTLSIdentity.generate().fingerprint : identityA.fingerprint
            securityA = .dtls(identity: identityA, role: .client, remoteFingerprint: identityB.fingerprint)
            securityB = .dtls(identity: identityB, role: .server, remoteFingerprint: expectedByB)
        } else {
            let keyA = [UInt8](repeating: 0x11, count: 30)
            let keyB = [UInt8](repeating: 0x22, count: 30)
            securityA = .sdes(SRTPKeyingMaterial(profile: .aes128CMHMACSHA1_80, localMasterKey: keyA, remoteMasterKey: keyB))
            securityB = .sdes(SRTPKeyingMaterial(profile: .aes128CMHMACSHA1_80, localMasterKey: keyB, remoteMasterKey: keyA))
        }
        var configuration = MediaSessionConfiguration(codec: codec, telephoneEventPayloadType: telephoneEvent, cname: "a@parley", disruptionTimeout: disruptionTimeout, rtcpInterval: .seconds(1))
        let capacity = codec.clockRate * 10
        sinkA = CapturingSink(capacity: capacity)
        sinkB = CapturingSink(capacity: capacity, writeDelayMilliseconds: playoutDelayBMilliseconds)
        a = try MediaSession(configuration: configuration, security: securityA, transport: socketA, source: sourceA, sink: sinkA)
        configuration.localSSRC = configuration.localSSRC &+ 1
        configuration.cname = "b@parley"
        configuration.remoteSSRC = remoteSSRCForB
        configuration.decodesAudio = bDecodes
        adjustB(&configuration)
        b = try MediaSession(configuration: configuration, security: securityB, transport: socketB, source: sourceB, sink: sinkB)
        eventsA = EventLog(a)
        eventsB = EventLog(b)
        network.attach(socketA) { [a] in a.receive($0) }
        network.attach(socketB) { [b] in b.receive($0) }
        network.start()
        b.start(on: clock)
        a.start(on: clock)
    }

    func waitForAudio(seconds: Double, samples: Int) -> Bool {
        waitUntil(seconds: seconds) { sinkA.capturedCount >= samples && sinkB.capturedCount >= samples }
    }

    func finish() {
        a.stop(clock: clock)
        b.stop(clock: clock)
        clock.stop()
        network.stop()
    }
}

@Suite(.serialized) struct MediaSessionTests {
    /// Where the remote audio starts in a capture: the first sample after the initial silence.
    func afterStartup(_ samples: [Int16], skip: Int) -> [Int16] {
        guard let first = samples.firstIndex(where: { abs(Int($0)) > 500 }) else { return [] }
        return Array(samples.dropFirst(first + skip))
    }

    @Test func twoSessionsHearEachOtherOverDTLSSRTPAndOpus() throws {
        let pair = try SessionPair(
            codec: .opus(payloadType: 111, settings: OpusSettings()),
            sourceA: ToneSource(frequency: 440, sampleRate: 48000), sourceB: ToneSource(frequency: 1000, sampleRate: 48000))
        defer { pair.finish() }
        // Three seconds of audio each way.
        #expect(pair.waitForAudio(seconds: 10, samples: 3 * 48000))
        #expect(waitUntil(seconds: 3) { pair.a.statistics().rttMs != nil && pair.b.statistics().rttMs != nil })
        let heardByA = afterStartup(pair.sinkA.captured, skip: 4800)
        let heardByB = afterStartup(pair.sinkB.captured, skip: 4800)
        #expect(heardByA.count >= 48000 && heardByB.count >= 48000)
        let frequencyAtA = TestAudio.dominantFrequency(Array(heardByA.prefix(48000)), sampleRate: 48000)
        let frequencyAtB = TestAudio.dominantFrequency(Array(heardByB.prefix(48000)), sampleRate: 48000)
        #expect(abs(frequencyAtA - 1000) <= 5, "A heard \(frequencyAtA) Hz")
        #expect(abs(frequencyAtB - 440) <= 5, "B heard \(frequencyAtB) Hz")

        let statsA = pair.a.statistics()
        let statsB = pair.b.statistics()
        for stats in [statsA, statsB] {
            #expect(stats.codec == "opus")
            #expect(stats.srtpProfile == "AEAD_AES_256_GCM")
            #expect(stats.packetsSent >= 150)
            #expect(stats.packetsReceived >= 150)
            #expect(stats.packetsLost == 0)
            #expect(stats.remotePacketsLost == 0)
            #expect(stats.srtpAuthenticationFailures == 0)
            #expect(stats.jitterBufferDelayMs >= 20 && stats.jitterBufferDelayMs <= 200)
            #expect(stats.audioLevel > 0.1)
            // Only the start-up can conceal on a clean link: under 5% of what was played.
            #expect(stats.concealedSamples * 20 < stats.totalSamplesPlayed)
        }
        // Events reach the recorder through a task, which a loaded machine may run late.
        #expect(waitUntil(seconds: 5) { pair.eventsA.events.contains(.secured(.aeadAES256GCM)) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for (name, stats) in [("A", statsA), ("B", statsB)] {
            print("loopback-opus \(name): \(String(decoding: try encoder.encode(stats), as: UTF8.self))")
        }
    }

    /// One side at an agent's rate (Opus coded at 8, 16 or 24 kHz, `preferredAudioRate`), the
    /// other at 48 kHz: each hears the other's tone at its pitch, in frames of its own rate; the
    /// RTP clock stays 48 kHz (RFC 7587), so the 48 kHz side sees no jitter from our timestamps,
    /// and our RFC 4733 digits arrive.
    @Test(arguments: [8000, 16000, 24000])
    func opusAtAnAgentsRateTalksWithAFortyEightKilohertzPeer(rate: Int) throws {
        let pair = try SessionPair(
            codec: .opus(payloadType: 111, settings: OpusSettings()), telephoneEvent: 101,
            sourceA: ToneSource(frequency: 440, sampleRate: 48000), sourceB: ToneSource(frequency: 1000, sampleRate: rate),
            adjustB: { $0.preferredAudioRate = rate })
        defer { pair.finish() }
        #expect(pair.b.configuration.audioRate == rate)
        #expect(pair.a.configuration.audioRate == 48000)
        #expect(waitUntil(seconds: 10) { pair.sinkA.capturedCount >= 3 * 48000 && pair.sinkB.capturedCount >= 3 * rate })
        let heardByA = afterStartup(pair.sinkA.captured, skip: 4800)
        let heardByB = afterStartup(pair.sinkB.captured, skip: rate / 10)
        let frequencyAtA = TestAudio.dominantFrequency(Array(heardByA.prefix(48000)), sampleRate: 48000)
        let frequencyAtB = TestAudio.dominantFrequency(Array(heardByB.prefix(rate)), sampleRate: rate)
        #expect(abs(frequencyAtA - 1000) <= 5, "A heard \(frequencyAtA) Hz")
        #expect(abs(frequencyAtB - 440) <= 5, "B heard \(frequencyAtB) Hz")
        #expect(pair.a.statistics().jitterMs < 10)
        try pair.b.sendDTMF("5")
        #expect(waitUntil(seconds: 5) { pair.eventsA.digits == "5" })
    }

    @Test func aG711CallKeepsItsEightKilohertzWhateverRateIsPreferred() {
        var configuration = MediaSessionConfiguration(codec: .pcmu())
        configuration.preferredAudioRate = 16000
        #expect(configuration.audioRate == 8000)
        configuration.codec = .opus(payloadType: 111, settings: OpusSettings())
        #expect(configuration.audioRate == 16000)
        configuration.preferredAudioRate = 44100
        #expect(configuration.audioRate == 48000)
    }

    /// 10% loss on one direction: the call carries on, the receiver counts the loss and conceals
    /// it (Opus FEC from the next packet), and the peer learns the loss from RTCP.
    @Test func lossIsReportedAndConcealed() throws {
        let pair = try SessionPair(
            codec: .opus(payloadType: 111, settings: OpusSettings(expectedLossPercent: 20)),
            sourceA: ToneSource(frequency: 440, sampleRate: 48000), sourceB: ToneSource(frequency: 1000, sampleRate: 48000))
        defer { pair.finish() }
        #expect(pair.waitForAudio(seconds: 5, samples: 24000))
        pair.socketA.dropEvery(10)
        let start = pair.sinkB.capturedCount
        #expect(pair.waitForAudio(seconds: 10, samples: start + 3 * 48000))
        #expect(waitUntil(seconds: 3) { (pair.a.statistics().remotePacketsLost ?? 0) > 0 })
        let stats = pair.b.statistics()
        #expect(stats.packetsLost >= 12)
        #expect(stats.concealedSamples >= stats.packetsLost * 960)
        let heard = Array(pair.sinkB.captured[(start + 4800)...].prefix(96000))
        #expect(abs(TestAudio.dominantFrequency(heard, sampleRate: 48000) - 440) <= 5)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        print("loopback-opus-10%-loss B: \(String(decoding: try encoder.encode(stats), as: UTF8.self))")
    }

    /// A session nobody hears (a load generator's) decodes nothing and gives its sink nothing,
    /// yet counts what it receives as a decoding one does: packets, loss, jitter, concealment.
    @Test func aSessionThatDoesNotDecodeStillCountsLossAndConcealment() throws {
        let pair = try SessionPair(
            codec: .opus(payloadType: 111, settings: OpusSettings()),
            sourceA: ToneSource(frequency: 440, sampleRate: 48000), sourceB: ToneSource(frequency: 1000, sampleRate: 48000), bDecodes: false)
        defer { pair.finish() }
        #expect(waitUntil(seconds: 5) { pair.b.statistics().packetsReceived >= 25 && pair.sinkA.capturedCount >= 24000 })
        pair.socketA.dropEvery(10)
        let before = pair.b.statistics()
        #expect(waitUntil(seconds: 10) { pair.b.statistics().packetsReceived >= before.packetsReceived + 100 })
        #expect(waitUntil(seconds: 3) { (pair.a.statistics().remotePacketsLost ?? 0) > 0 })
        let stats = pair.b.statistics()
        #expect(pair.sinkB.capturedCount == 0)
        #expect(stats.packetsLost >= 8)
        #expect(stats.concealedSamples >= stats.packetsLost * 960)
        #expect(stats.concealedSamples < stats.totalSamplesPlayed / 4)
        #expect(stats.totalSamplesPlayed >= (stats.packetsReceived - 10) * 960)
        #expect(stats.audioLevel == 0)
    }

    @Test func g711WithSDESAndRFC4733DigitsArriveOnceEach() throws {
        let pair = try SessionPair(
            codec: .pcmu(), telephoneEvent: 101, sourceA: ToneSource(frequency: 600, sampleRate: 8000),
            sourceB: ToneSource(frequency: 1300, sampleRate: 8000), secure: false)
        defer { pair.finish() }
        #expect(pair.waitForAudio(seconds: 5, samples: 8000 / 2))
        try pair.a.sendDTMF("147*#D")
        #expect(throws: MediaSessionError.invalidDTMF("12x")) { try pair.a.sendDTMF("12x") }
        #expect(waitUntil(seconds: 5) { pair.eventsB.digits.count >= 6 })
        // Give the redundant end packets time to arrive; still one report per digit.
        #expect(pair.waitForAudio(seconds: 5, samples: 3 * 8000))
        #expect(pair.eventsB.digits == "147*#D")
        #expect(pair.eventsB.events.contains(.dtmf(DTMFDigit("1")!, inBand: false)))
        #expect(pair.b.statistics().packetsLost == 0)
        #expect(abs(TestAudio.dominantFrequency(afterStartup(pair.sinkB.captured, skip: 800).prefix(4000).map { $0 }, sampleRate: 8000) - 600) <= 5)
    }

    /// A frame the transport refuses (no selected pair, a full buffer) is counted, not lost
    /// without a trace, and the call sends again once the transport takes packets.
    @Test func framesTheTransportRefusesAreCountedAndTheCallGoesOn() throws {
        let pair = try SessionPair(
            codec: .pcmu(), sourceA: ToneSource(frequency: 600, sampleRate: 8000),
            sourceB: ToneSource(frequency: 1300, sampleRate: 8000), secure: false)
        defer { pair.finish() }
        #expect(pair.waitForAudio(seconds: 5, samples: 8000 / 2))
        #expect(pair.a.statistics().sendFailures == 0)
        pair.socketA.refuse(true)
        #expect(waitUntil(seconds: 5) { pair.a.statistics().sendFailures >= 10 })
        pair.socketA.refuse(false)
        let refused = pair.a.statistics()
        #expect(waitUntil(seconds: 5) { pair.a.statistics().packetsSent >= refused.packetsSent + 10 })
        // Every refused frame was counted once: none while the transport takes them again
        // (a frame or two may have been in flight when refusing stopped).
        #expect(pair.a.statistics().sendFailures <= refused.sendFailures + 2)
        #expect(pair.b.statistics().sendFailures == 0)
    }

    /// libwebrtc sends RFC 4733 events on telephone-event/8000 even when the call's codec is
    /// Opus; our answer accepted that payload type, so its digits must arrive.
    @Test func digitsOnTheEightKilohertzTelephoneEventBesideOpusArrive() throws {
        let answered = [
            "v=0", "o=- 1 1 IN IP4 127.0.0.1", "s=-", "t=0 0",
            "m=audio 9 UDP/TLS/RTP/SAVPF 111 110 126", "c=IN IP4 0.0.0.0",
            "a=rtpmap:111 opus/48000/2", "a=rtpmap:110 telephone-event/48000", "a=rtpmap:126 telephone-event/8000", "",
        ].joined(separator: "\r\n")
        let negotiated = try MediaSessionConfiguration.negotiated(remote: try SessionDescription(parsing: answered).media[0])
        #expect(negotiated.telephoneEventPayloadType == 110)
        #expect(negotiated.receivedTelephoneEventPayloadTypes == [110, 126])
        // A plays the browser: Opus audio, digits on payload type 126.
        let pair = try SessionPair(
            codec: .opus(payloadType: 111, settings: OpusSettings()), telephoneEvent: 126, sourceA: ToneSource(frequency: 440, sampleRate: 48000),
            sourceB: SilenceSource(), adjustB: { $0.telephoneEventPayloadType = negotiated.telephoneEventPayloadType
                $0.receivedTelephoneEventPayloadTypes = negotiated.receivedTelephoneEventPayloadTypes })
        defer { pair.finish() }
        #expect(pair.waitForAudio(seconds: 5, samples: 48000 / 2))
        try pair.a.sendDTMF("159#")
        #expect(waitUntil(seconds: 5) { pair.eventsB.digits.count >= 4 })
        #expect(pair.eventsB.digits == "159#")
        #expect(pair.b.statistics().dtmfReceived == 4)
    }

    @Test func inBandDTMFIsDetectedOnG711() throws {
        let source = DTMFToneSource(digits: "309", sampleRate: 8000)
        let pair = try SessionPair(codec: .pcma(), sourceA: source, sourceB: SilenceSource(), secure: false)
        defer { pair.finish() }
        #expect(waitUntil(seconds: 8) { pair.eventsB.digits.count >= 3 })
        #expect(pair.eventsB.digits == "309")
        #expect(pair.eventsB.events.contains(.dtmf(DTMFDigit("3")!, inBand: true)))
    }

    @Test func inBandDTMFIsDetectedOnOpus() throws {
        let source = DTMFToneSource(digits: "2#7", sampleRate: 48000)
        let pair = try SessionPair(codec: .opus(payloadType: 111, settings: OpusSettings()), sourceA: source, sourceB: SilenceSource(), secure: false)
        defer { pair.finish() }
        #expect(waitUntil(seconds: 8) { pair.eventsB.digits.count >= 3 })
        #expect(pair.eventsB.digits == "2#7")
        #expect(pair.eventsB.events.contains(.dtmf(DTMFDigit("2")!, inBand: true)))
    }

    /// A peer that negotiated telephone-event but leaves its keys as tones (a gateway, a caller
    /// playing a recording) is heard all the same: the detector runs until an event arrives.
    @Test func inBandTonesFromAPeerThatNegotiatedTelephoneEventAreDigitsUntilItSendsAnEvent() throws {
        let pair = try SessionPair(codec: .pcmu(), telephoneEvent: 101, sourceA: DTMFToneSource(digits: "309", sampleRate: 8000), sourceB: SilenceSource(), secure: false)
        defer { pair.finish() }
        #expect(waitUntil(seconds: 8) { pair.eventsB.digits.count >= 3 })
        #expect(pair.eventsB.digits == "309")
        #expect(pair.eventsB.events.contains(.dtmf(DTMFDigit("3")!, inBand: true)))
    }

    /// The detector starts on every call that decodes, whatever the far end negotiated.
    @Test func inBandDetectorRunsForEveryCallThatDecodes() throws {
        func negotiated(_ lines: [String]) throws -> MediaSessionConfiguration {
            let head = ["v=0", "o=- 1 1 IN IP4 127.0.0.1", "s=-", "t=0 0", "c=IN IP4 0.0.0.0"]
            return try MediaSessionConfiguration.negotiated(remote: try SessionDescription(parsing: (head + lines + [""]).joined(separator: "\r\n")).media[0])
        }
        let plain = try negotiated(["m=audio 9 RTP/AVP 0", "a=rtpmap:0 PCMU/8000"])
        #expect(plain.runsInBandDTMFDetector)
        let withEvents = try negotiated(["m=audio 9 RTP/AVP 0 101", "a=rtpmap:0 PCMU/8000", "a=rtpmap:101 telephone-event/8000"])
        #expect(withEvents.runsInBandDTMFDetector)
        // Opus beside telephone-event/8000 only (a browser's answer): the detector listens too.
        let opus = try negotiated(["m=audio 9 UDP/TLS/RTP/SAVPF 111 126", "a=rtpmap:111 opus/48000/2", "a=rtpmap:126 telephone-event/8000"])
        #expect(opus.telephoneEventPayloadType == nil)
        #expect(opus.runsInBandDTMFDetector)
        var silent = plain
        silent.decodesAudio = false
        #expect(!silent.runsInBandDTMFDetector)
        var off = plain
        off.detectInBandDTMF = false
        #expect(!off.runsInBandDTMFDetector)
    }

    /// A far end that sends events and also leaves the tones in its audio: each digit once.
    @Test func afterAnRFC4733EventInBandTonesAreIgnored() throws {
        let tones = GatedSource(DTMFToneSource(digits: "9", sampleRate: 8000))
        let pair = try SessionPair(codec: .pcmu(), telephoneEvent: 101, sourceA: tones, sourceB: SilenceSource(), secure: false)
        defer { pair.finish() }
        #expect(pair.waitForAudio(seconds: 5, samples: 4000))
        try pair.a.sendDTMF("5")
        #expect(waitUntil(seconds: 5) { pair.eventsB.digits == "5" })
        tones.open()
        // The tone starts 0.5 s after the gate opens and lasts 0.1 s; B has played it by the
        // time it has played 1.5 s more audio.
        let played = pair.b.statistics().totalSamplesPlayed
        #expect(waitUntil(seconds: 5) { pair.b.statistics().totalSamplesPlayed >= played + 12000 })
        #expect(pair.eventsB.digits == "5")
    }

    @Test func mutedSessionKeepsSendingSilence() throws {
        let pair = try SessionPair(codec: .pcmu(), sourceA: ToneSource(frequency: 500, sampleRate: 8000), sourceB: SilenceSource(), secure: false)
        defer { pair.finish() }
        #expect(pair.waitForAudio(seconds: 5, samples: 8000))
        pair.a.isMuted = true
        let sentBefore = pair.a.statistics().packetsSent
        let capturedBefore = pair.sinkB.capturedCount
        #expect(pair.waitForAudio(seconds: 5, samples: capturedBefore + 8000))
        #expect(pair.a.statistics().packetsSent >= sentBefore + 40)
        #expect(pair.a.statistics().muted)
        let tail = pair.sinkB.captured.suffix(4000)
        #expect(TestAudio.rms(tail) < 50)
    }

    @Test func silenceRaisesDisruptedThenRestored() throws {
        let pair = try SessionPair(
            codec: .pcmu(), sourceA: ToneSource(frequency: 500, sampleRate: 8000), sourceB: SilenceSource(), secure: false,
            disruptionTimeout: .milliseconds(300))
        defer { pair.finish() }
        #expect(pair.waitForAudio(seconds: 5, samples: 4000))
        pair.socketA.dropNext(40)
        #expect(waitUntil(seconds: 3) { pair.eventsB.events.contains(.disrupted) })
        #expect(waitUntil(seconds: 3) { pair.eventsB.events.contains(.restored) })
        let events = pair.eventsB.events
        #expect(events.firstIndex(of: .disrupted)! < events.firstIndex(of: .restored)!)
        #expect(pair.b.statistics().packetsLost >= 30)
    }

    @Test func followsTheSourceThatActuallySends() throws {
        let pair = try SessionPair(
            codec: .pcmu(), sourceA: ToneSource(frequency: 700, sampleRate: 8000), sourceB: SilenceSource(), secure: false, remoteSSRCForB: 12345)
        defer { pair.finish() }
        #expect(pair.waitForAudio(seconds: 5, samples: 8000))
        #expect(pair.b.statistics().packetsReceived > 20)
        #expect(abs(TestAudio.dominantFrequency(afterStartup(pair.sinkB.captured, skip: 800).prefix(4000).map { $0 }, sampleRate: 8000) - 700) <= 5)
    }

    @Test func fingerprintMismatchMeansNoMediaEver() throws {
        let pair = try SessionPair(
            codec: .opus(payloadType: 111, settings: OpusSettings()), sourceA: ToneSource(frequency: 440, sampleRate: 48000),
            sourceB: ToneSource(frequency: 1000, sampleRate: 48000), wrongFingerprintForB: true)
        defer { pair.finish() }
        #expect(waitUntil(seconds: 5) { pair.eventsB.events.contains(.securityFailed(.fingerprintMismatch(hashFunction: "sha-256"))) })
        #expect(pair.waitForAudio(seconds: 5, samples: 48000))
        #expect(pair.a.statistics().packetsSent == 0)
        #expect(pair.b.statistics().packetsSent == 0)
        #expect(pair.a.statistics().packetsReceived == 0 && pair.b.statistics().packetsReceived == 0)
        #expect(pair.sinkA.captured.allSatisfy { $0 == 0 } && pair.sinkB.captured.allSatisfy { $0 == 0 })
    }

    @Test func configurationFromRemoteSDP() throws {
        let sdp = [
            "v=0", "o=- 1 1 IN IP4 127.0.0.1", "s=-", "t=0 0",
            "m=audio 9 UDP/TLS/RTP/SAVPF 111 0 126", "c=IN IP4 0.0.0.0",
            "a=rtpmap:111 opus/48000/2", "a=fmtp:111 minptime=10;useinbandfec=1;maxaveragebitrate=20000",
            "a=rtpmap:126 telephone-event/48000", "a=ptime:40", "a=ssrc:305419896 cname:peer", "",
        ].joined(separator: "\r\n")
        let session = try SessionDescription(parsing: sdp)
        let configuration = try MediaSessionConfiguration.negotiated(remote: session.media[0])
        guard case .opus(let payloadType, let settings) = configuration.codec else { Issue.record("not opus"); return }
        #expect(payloadType == 111)
        #expect(settings.bitrate == 20000)
        #expect(settings.frameMilliseconds == 40)
        #expect(configuration.frameMilliseconds == 40)
        #expect(configuration.telephoneEventPayloadType == 126)
        #expect(configuration.remoteSSRC == 305_419_896)

        let g729 = try SessionDescription(parsing: sdp.replacingOccurrences(of: "111 0 126", with: "18").replacingOccurrences(of: "a=rtpmap:111 opus/48000/2\r\n", with: ""))
        #expect(throws: MediaSessionError.noSupportedCodec(["G729/8000"])) { try MediaSessionConfiguration.negotiated(remote: g729.media[0]) }
    }
}

/// Silence until `open()`, then `inner`.
final class GatedSource: AudioSource, @unchecked Sendable {
    private let inner: any AudioSource
    private let isOpen = Lock(false)

    init(_ inner: any AudioSource) { self.inner = inner }

    func open() { isOpen.withLock { $0 = true } }

    func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Bool {
        guard isOpen.withLock({ $0 }) else {
            frame.update(repeating: 0)
            return true
        }
        return inner.read(into: frame)
    }
}

/// Plays DTMF digits as audio tones (for in-band detection), then silence.
final class DTMFToneSource: AudioSource {
    private let samples: [Int16]
    private var position = 0

    init(digits: String, sampleRate: Int) {
        var samples = [Int16](repeating: 0, count: sampleRate / 2)
        for character in digits {
            let (low, high) = DTMFDigit(character)!.frequencies
            samples += (0..<(sampleRate / 10)).map { index in
                let t = Double(index) / Double(sampleRate)
                return Int16(6000 * sin(2 * .pi * low * t) + 6000 * sin(2 * .pi * high * t))
            }
            samples += [Int16](repeating: 0, count: sampleRate / 10)
        }
        self.samples = samples
    }

    func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Bool {
        for index in frame.indices {
            frame[index] = position < samples.count ? samples[position] : 0
            position += 1
        }
        return true
    }
}
