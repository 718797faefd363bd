import Foundation
import Media
import Locking
import Testing

/// The silence and tone detectors that bots' wait and expect steps listen with.
@Suite struct ListeningDetectorTests {
    static let rate = 48000
    static let frame = 960

    final class Count: Sendable {
        let value = Lock(0)
        func bump() { value.withLock { $0 += 1 } }
        var times: Int { value.withLock { $0 } }
    }

    /// Feeds `frames` 20 ms frames of `make(sampleIndex)`; returns how many frames had passed
    /// when the listener first reported (nil: never).
    static func feed(_ listener: any ReceivedAudioListener, count: Count, frames: Int, _ make: (Int) -> Double) -> Int? {
        var buffer = [Int16](repeating: 0, count: frame)
        var first: Int?
        for index in 0..<frames {
            for sample in 0..<frame { buffer[sample] = Int16(max(-32767, min(32767, make(index * frame + sample)))) }
            buffer.withUnsafeBufferPointer { listener.listen(to: $0) }
            if first == nil, count.times > 0 { first = index + 1 }
        }
        return first
    }

    static func sine(_ frequency: Double, amplitude: Double = 8000) -> (Int) -> Double {
        { amplitude * sin(2 * .pi * frequency * Double($0) / Double(rate)) }
    }

    @Test func silenceIsHeardAfterItsLengthWithoutABreak() {
        let count = Count()
        let detector = SilenceDetector(sampleRate: Self.rate, length: .milliseconds(600), heard: count.bump)
        // 200 ms loud, 400 ms quiet, one loud frame (the 31st), then quiet: the 600 ms count from the break.
        let first = Self.feed(detector, count: count, frames: 100) { sample in
            let frame = sample / Self.frame
            return frame < 10 || frame == 30 ? Self.sine(300)(sample) : 30 * sin(Double(sample))
        }
        #expect(first == 31 + 30)
        #expect(count.times == 1)
    }

    @Test func aToneIsHeardAtItsFrequencyOnly() {
        let count = Count()
        let detector = ToneDetector(sampleRate: Self.rate, frequency: 880, heard: count.bump)
        #expect(Self.feed(detector, count: count, frames: 50, Self.sine(660)) == nil)
        #expect(Self.feed(detector, count: count, frames: 50, Self.sine(800)) == nil)
        // 100 ms: five frames of 880 Hz.
        #expect(Self.feed(detector, count: count, frames: 50, Self.sine(880)) == 5)
        #expect(count.times == 1)
    }

    @Test func aToneIsHeardThroughNoiseButNotInNoiseOrSpeechLikeSound() {
        let count = Count()
        let detector = ToneDetector(sampleRate: Self.rate, frequency: 1000, heard: count.bump)
        var seed: UInt64 = 42
        let noise: (Int) -> Double = { _ in
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Double(Int64(bitPattern: seed) >> 54)
        }
        // Noise alone, and a chord of harmonics of 200 Hz (a voiced vowel's shape, 1000 Hz among them).
        #expect(Self.feed(detector, count: count, frames: 50, noise) == nil)
        let vowel: (Int) -> Double = { sample in (1...8).reduce(0.0) { $0 + Self.sine(200 * Double($1), amplitude: 2500)(sample) } }
        #expect(Self.feed(detector, count: count, frames: 50, vowel) == nil)
        // The tone about 25 dB above the noise.
        #expect(Self.feed(detector, count: count, frames: 50) { Self.sine(1000)($0) + noise($0) } == 5)
    }

    @Test func aQuietToneIsNotATone() {
        let count = Count()
        let detector = ToneDetector(sampleRate: 8000, frequency: 440, heard: count.bump)
        // -60 dBFS: below the -45 dBFS floor.
        var buffer = [Int16](repeating: 0, count: 160)
        for round in 0..<50 {
            for index in 0..<160 { buffer[index] = Int16(33 * sin(2 * .pi * 440 * Double(round * 160 + index) / 8000)) }
            buffer.withUnsafeBufferPointer { detector.listen(to: $0) }
        }
        #expect(count.times == 0)
    }
}
