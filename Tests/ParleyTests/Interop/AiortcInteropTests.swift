import Foundation
import Media
import Parley
import Signaling
import TestSupport
import Testing

/// aiortc, an independent WebRTC stack, as the far end of our media in a network namespace:
/// ICE, DTLS-SRTP, Opus and PCMU, RFC 4733, loss and jitter, and a certificate that does not
/// match the fingerprint its SDP promised.
@Suite(.serialized, .tags(.namespaces, .realPeer, .slow), .needsRoot) struct AiortcInteropTests {
    /// A namespace, aiortc inside it, and our leg (offering, vanilla ICE) on the host end.
    private func withPeer(_ peerOptions: AiortcPeer.Options, dropPercent: Double? = nil,
                          _ body: (PeerNamespace, AiortcPeer) async throws -> Void) async throws {
        let bed = try await PeerNamespace.start()
        var peer: AiortcPeer?
        do {
            if let dropPercent { try await bed.dropPackets(percent: dropPercent) }
            peer = try AiortcPeer(in: bed, options: peerOptions)
            try await body(bed, try #require(peer))
        } catch {
            peer?.stop()
            await bed.stop()
            throw error
        }
        peer?.stop()
        await bed.stop()
    }

    /// Offers to aiortc, applies its answer, and returns once the media is secured.
    private func connect(_ leg: MediaLeg, _ events: EventRecorder<MediaLegEvent>, to peer: AiortcPeer, within seconds: Double = 15) async throws {
        let answer = try await peer.answer(try await leg.makeOffer())
        try await leg.applyAnswer(answer)
        _ = try await events.next("DTLS-SRTP secured", within: seconds) { if case .secured = $0 { true } else { false } }
    }

    private func audioBothWays(codec: String, ours: Double, theirs: Double) async throws {
        var peerOptions = AiortcPeer.Options()
        peerOptions.tone = theirs
        peerOptions.codec = codec
        try await withPeer(peerOptions) { bed, peer in
            let recording = InteropMedia.temporaryFile("\(codec).wav")
            defer { try? FileManager.default.removeItem(atPath: recording) }
            let leg = try MediaLeg(role: .controlling, options: InteropMedia.options(interface: bed.hostInterface, codec: codec, tone: ours, record: recording, vanilla: true),
                                   logger: InteropMedia.logger)
            let events = EventRecorder(leg.events)
            try await connect(leg, events, to: peer)
            try await waitUntil("two seconds of aiortc's audio") { await leg.statistics().audio?.packetsReceived ?? 0 >= 100 }

            // aiortc's view of our RFC 4733 packets: the script reads them off its RTP receiver.
            try await leg.sendDTMF("19#")
            for digit in ["1", "9", "#"] {
                _ = try await peer.event("dtmf", "digit \(digit)", within: 5) { $0["digit"]?.stringValue == digit }
            }

            let result = try await peer.event("result", within: 15)
            let statistics = await leg.statistics().audio
            InteropMedia.report("aiortc \(codec)", statistics)
            await leg.stop()
            #expect(statistics?.codec.lowercased() == codec)
            #expect(statistics?.packetsLost == 0, "a clean link loses nothing")
            #expect(statistics?.remotePacketsLost == 0, "aiortc's receiver reports: nothing of ours lost")
            #expect(result["dtmf"]?.stringValue == "19#", "each digit reported once")
            let heardByPeer = try #require(result["frequency"]?.doubleValue, "aiortc heard nothing: \(result.serialized)")
            #expect(abs(heardByPeer - ours) <= 5, "aiortc heard \(heardByPeer) Hz, we played \(ours) Hz")
            let heardByUs = try #require(try Recording.firstToneFrequency(recording, seconds: 1), "our recording is silent")
            #expect(abs(heardByUs - theirs) <= 5, "we heard \(heardByUs) Hz, aiortc played \(theirs) Hz")
            print("[interop] aiortc \(codec): aiortc heard \(String(format: "%.1f", heardByPeer)) Hz (we played \(ours)), we heard \(String(format: "%.1f", heardByUs)) Hz (it played \(theirs))")
        }
    }

    @Test func opusBothWaysWithDTMF() async throws {
        try await audioBothWays(codec: "opus", ours: 440, theirs: 880)
    }

    @Test func pcmuBothWaysWithDTMF() async throws {
        try await audioBothWays(codec: "pcmu", ours: 600, theirs: 1000)
    }

    /// 5 % of packets dropped each way (iptables in the peer's namespace) and 0–60 ms of random
    /// delay on aiortc's packets (this kernel has no netem): the call stays up, audio still
    /// carries the tones, and the statistics show the loss, the jitter and the concealment.
    @Test func lossAndJitterAreConcealedAndReported() async throws {
        var peerOptions = AiortcPeer.Options()
        peerOptions.codec = "opus"
        peerOptions.duration = 6
        peerOptions.jitterMs = 30
        try await withPeer(peerOptions, dropPercent: 5) { bed, peer in
            let recording = InteropMedia.temporaryFile("impaired.wav")
            defer { try? FileManager.default.removeItem(atPath: recording) }
            let leg = try MediaLeg(role: .controlling, options: InteropMedia.options(interface: bed.hostInterface, codec: "opus", tone: 440, record: recording, vanilla: true),
                                   logger: InteropMedia.logger)
            let events = EventRecorder(leg.events)
            try await connect(leg, events, to: peer, within: 20)
            try await waitUntil("five seconds of impaired audio", within: 15) { await leg.statistics().audio?.packetsReceived ?? 0 >= 250 }
            try await waitUntil("aiortc's report of our loss", within: 5) { await leg.statistics().audio?.remotePacketsLost ?? 0 > 0 }
            let statistics = try #require(await leg.statistics().audio)
            let result = try await peer.event("result", within: 15)
            InteropMedia.report("aiortc opus, 5% loss + 30 ms jitter", statistics)
            await leg.stop()

            #expect(!(await events.all()).contains { if case .failed = $0 { true } else { false } }, "the call kept running")
            #expect(statistics.packetsLost > 0)
            #expect(statistics.concealedSamples > 0)
            #expect((statistics.remotePacketsLost ?? 0) > 0)
            #expect(statistics.jitterMs > 5, "interarrival jitter \(statistics.jitterMs) ms")
            let heardByPeer = try #require(result["frequency"]?.doubleValue, "aiortc heard nothing: \(result.serialized)")
            #expect(abs(heardByPeer - 440) <= 5, "aiortc heard \(heardByPeer) Hz")
            let heardByUs = try #require(try Recording.firstToneFrequency(recording, seconds: 1), "our recording is silent")
            #expect(abs(heardByUs - 880) <= 5, "we heard \(heardByUs) Hz")
        }
    }

    /// aiortc's SDP names one certificate, its DTLS handshake presents another: the leg fails
    /// with the DTLS error, and not one sample of audio is decoded on either side.
    @Test func aCertificateThatDoesNotMatchTheFingerprintFailsWithNoAudio() async throws {
        var peerOptions = AiortcPeer.Options()
        peerOptions.badFingerprint = true
        peerOptions.duration = 2
        peerOptions.timeout = 12
        try await withPeer(peerOptions) { bed, peer in
            let recording = InteropMedia.temporaryFile("mismatch.wav")
            defer { try? FileManager.default.removeItem(atPath: recording) }
            let leg = try MediaLeg(role: .controlling, options: InteropMedia.options(interface: bed.hostInterface, tone: 440, record: recording, vanilla: true),
                                   logger: InteropMedia.logger)
            let events = EventRecorder(leg.events)
            let answer = try await peer.answer(try await leg.makeOffer())
            try await leg.applyAnswer(answer)
            let failed = try await events.next("the DTLS failure", within: 15) { if case .failed = $0 { true } else { false } }
            let error = try #require(matching(failed) { if case .failed(let error) = $0 { error } else { nil } })
            #expect(error.kind == .dtlsFailed, "\(error)")
            print("[interop] fingerprint mismatch: \(error.code): \(error.message)")
            let result = try await peer.event("result", within: 15)
            let statistics = await leg.statistics().audio
            await leg.stop()

            #expect(!(await events.all()).contains { if case .secured = $0 { true } else { false } })
            #expect((statistics?.packetsReceived ?? 0) == 0)
            #expect((statistics?.bytesReceived ?? 0) == 0)
            #expect((statistics?.audioLevel ?? 0) == 0)
            #expect(try InteropMedia.peak(recording) == 0, "our recording is silent")
            #expect(result["samples"]?.intValue == 0, "aiortc decoded nothing of ours: \(result.serialized)")
        }
    }
}
