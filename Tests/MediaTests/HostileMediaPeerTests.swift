import Foundation
import Media
import TestSupport
import Testing

/// A healthy G.711/SDES call between two sessions on loopback, while A's side turns hostile: from
/// A's own socket (B's is connected to it, so nothing else gets through) and with A's SRTP key, it
/// throws garbage, replays, authenticated RTCP whose lengths lie, and STUN with a bad
/// MESSAGE-INTEGRITY at B. Every datagram is dropped and counted, and the call's audio goes on.
@Suite(.serialized) struct HostileMediaPeerTests {
    static let keyOfA = [UInt8](repeating: 0x11, count: 30)

    /// SRTP-protects a plain packet with A's key, as the hostile peer can.
    static func protect(_ plain: [UInt8], with context: SRTPContext, rtcp: Bool = false) throws -> [UInt8] {
        var buffer = plain + [UInt8](repeating: 0, count: SRTPContext.maximumTrailer)
        let length = try buffer.withUnsafeMutableBytes {
            rtcp ? try context.protectRTCP($0, length: plain.count) : try context.protectRTP($0, length: plain.count)
        }
        return Array(buffer.prefix(length))
    }

    static func rtcp(_ type: UInt8, count: UInt8, declaredWords: UInt16, body: [UInt8]) -> [UInt8] {
        [0x80 | count, type, UInt8(declaredWords >> 8), UInt8(declaredWords & 0xFF)] + body
    }

    @Test func garbageReplaysLyingRTCPAndBadSTUNAreDroppedAndCountedWhileAudioFlows() throws {
        let pair = try SessionPair(
            codec: .pcmu(), telephoneEvent: 101, sourceA: ToneSource(frequency: 600, sampleRate: 8000),
            sourceB: ToneSource(frequency: 1300, sampleRate: 8000), secure: false)
        defer { pair.finish() }
        #expect(pair.waitForAudio(seconds: 5, samples: 8000 / 2))
        func send(_ bytes: [UInt8]) { _ = bytes.withUnsafeBytes { pair.socketA.send($0) } }
        let before = pair.b.statistics()

        // 1. Garbage: random bytes, forged RTP headers, forged RTCP headers, empty-ish datagrams.
        var generator = SplitMix(seed: 4733)
        for index in 0..<300 {
            var bytes = (0..<(1 + Int(generator.next() % 400))).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            switch index % 3 {
            case 0: bytes[0] = 0x80 | (bytes[0] & 0x3F)
            case 1: bytes = [0x80, 200] + bytes
            default: break
            }
            send(bytes)
        }

        // 2. Replays: one authentic packet from a new source, then the same bytes 20 more times.
        let sender = try SRTPContext(profile: .aes128CMHMACSHA1_80, masterKey: Self.keyOfA, direction: .outbound)
        let authentic = try Self.protect(rtpPacket(sequence: 7, payload: [UInt8](repeating: 0xFF, count: 160)).enumerated().map { $0.offset == 11 ? 0x77 : $0.element }, with: sender)
        for _ in 0...20 { send(authentic) }

        // 3. Authenticated RTCP whose lengths lie: longer than the datagram, a report count with
        //    no blocks behind it, and padding larger than the packet.
        let lies: [[UInt8]] = [
            Self.rtcp(201, count: 0, declaredWords: 200, body: [0, 0, 0, 9]),
            Self.rtcp(200, count: 31, declaredWords: 6, body: [UInt8](repeating: 1, count: 24)),
            Self.rtcp(201, count: 0, declaredWords: 1, body: [0, 0, 0, 9]).enumerated().map { $0.offset == 0 ? 0xA0 : ($0.offset == 7 ? 200 : $0.element) },
        ]
        for lie in lies { send(try Self.protect(lie, with: sender, rtcp: true)) }

        // 4. A STUN binding request whose MESSAGE-INTEGRITY is wrong (libnice checks it on the ICE
        //    path; arriving here it is not media at all).
        var stun: [UInt8] = [0x00, 0x01, 0x00, 0x18, 0x21, 0x12, 0xA4, 0x42] + [UInt8](repeating: 0xAB, count: 12)
        stun += [0x00, 0x08, 0x00, 0x14] + [UInt8](repeating: 0xEE, count: 20)
        send(stun)

        #expect(waitUntil(seconds: 5) {
            let stats = pair.b.statistics()
            return stats.srtpReplays - before.srtpReplays >= 20 && stats.malformedPackets - before.malformedPackets >= lies.count
                && stats.unknownDatagrams - before.unknownDatagrams >= 1
        }, "replays \(pair.b.statistics().srtpReplays), malformed \(pair.b.statistics().malformedPackets), unknown \(pair.b.statistics().unknownDatagrams)")
        let after = pair.b.statistics()
        #expect(after.srtpAuthenticationFailures - before.srtpAuthenticationFailures >= 150)
        #expect(!pair.eventsB.events.contains(.remoteGoodbye))

        // The call goes on: another second of A's tone reaches B, and B still follows A's source.
        let heard = pair.sinkB.capturedCount
        #expect(pair.waitForAudio(seconds: 5, samples: heard + 8000))
        #expect(pair.b.statistics().packetsReceived > after.packetsReceived + 40)
        let tone = Array(pair.sinkB.captured.suffix(4000))
        #expect(abs(TestAudio.dominantFrequency(tone, sampleRate: 8000) - 600) <= 5)
    }
}
