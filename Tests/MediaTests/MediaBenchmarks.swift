import Foundation
import Media
import Testing

/// Cost of the per-packet work, printed, never asserted on timing. Run with
/// `PARLEY_BENCH=1 swift test --skip-build --filter MediaBenchmarks` (debug builds are slower
/// than release; libopus and libsrtp2 are optimised C either way).
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["PARLEY_BENCH"] != nil))
struct MediaBenchmarks {
    func measure(_ label: String, iterations: Int, unit: String = "op", _ body: () throws -> Void) rethrows {
        let start = ContinuousClock.now
        for _ in 0..<iterations { try body() }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(String(format: "bench %@: %.2f µs/%@ (%d iterations)", label, seconds / Double(iterations) * 1e6, unit, iterations))
    }

    @Test func opusEncodeAndDecode() throws {
        let encoder = try OpusEncoder(settings: OpusSettings())
        let decoder = try OpusDecoder()
        let pcm = TestAudio.sine(440, sampleRate: 48000, count: 960)
        var payload = [UInt8](repeating: 0, count: 1500)
        var output = [Int16](repeating: 0, count: 960)
        var length = 0
        try measure("opus encode 20 ms mono 32 kb/s", iterations: 2000, unit: "frame") {
            length = try pcm.withUnsafeBufferPointer { input in try payload.withUnsafeMutableBytes { try encoder.encode(input, into: $0) } }
        }
        try measure("opus decode 20 ms", iterations: 2000, unit: "frame") {
            _ = try payload.withUnsafeBytes { bytes in
                try output.withUnsafeMutableBufferPointer { try decoder.decode(UnsafeRawBufferPointer(rebasing: bytes[0..<length]), into: $0) }
            }
        }
    }

    @Test func srtpProtectAndUnprotect() throws {
        for profile in [SRTPProfile.aeadAES128GCM, .aeadAES256GCM, .aes128CMHMACSHA1_80] {
            let key = [UInt8](repeating: 7, count: profile.masterLength)
            let sender = try SRTPContext(profile: profile, masterKey: key, direction: .outbound)
            let receiver = try SRTPContext(profile: profile, masterKey: key, direction: .inbound)
            var buffer = [UInt8](repeating: 0, count: 1500)
            var sequence: UInt16 = 0
            try measure("srtp protect+unprotect \(profile.rawValue) 100-byte payload", iterations: 20000, unit: "packet") {
                sequence &+= 1
                let packet = rtpPacket(sequence: sequence, payload: [UInt8](repeating: 1, count: 100))
                try buffer.withUnsafeMutableBytes { raw in
                    raw.copyBytes(from: packet)
                    let protected = try sender.protectRTP(raw, length: packet.count)
                    _ = try receiver.unprotectRTP(raw, length: protected)
                }
            }
        }
    }

    @Test func rtpParseAndJitterBuffer() throws {
        let buffer = JitterBuffer()
        let packets = (0..<1024).map { rtpPacket(sequence: UInt16($0), payload: [UInt8](repeating: 3, count: 80)) }
        var index = 0
        measure("rtp parse + jitter insert + pop", iterations: 100_000, unit: "packet") {
            packets[index & 1023].withUnsafeBytes { raw in
                if let packet = try? RTPPacket.parse(raw) {
                    _ = buffer.insert(sequence: packet.sequenceNumber &+ UInt16(truncatingIfNeeded: index & ~1023), payload: UnsafeRawBufferPointer(rebasing: raw[packet.payloadRange]))
                }
            }
            _ = buffer.pop()
            index += 1
        }
    }

    /// A whole media tick of one Opus session (decode, encode, protect, send over UDP) while its
    /// peer feeds it, both ticked by hand on this thread.
    @Test func wholeTickPerSession() throws {
        let pair = try SessionPair(
            codec: .opus(payloadType: 111, settings: OpusSettings()), sourceA: ToneSource(frequency: 440, sampleRate: 48000),
            sourceB: ToneSource(frequency: 1000, sampleRate: 48000))
        #expect(pair.waitForAudio(seconds: 5, samples: 48000))
        pair.clock.stop()
        measure("opus session tick (A and B, each decode+encode+protect+send)", iterations: 2000, unit: "tick pair") {
            pair.a.tick()
            pair.b.tick()
        }
        pair.finish()
    }
}
