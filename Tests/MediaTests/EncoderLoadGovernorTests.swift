import Foundation
import Media
import TestSupport
import Testing

/// The clock's ceiling on Opus complexity: down while its ticks run short of time, back up once
/// there is room (docs/media.md, "Opus complexity under load").
struct EncoderLoadGovernorTests {
    static let tick = 20_000_000

    private func run(_ governor: inout EncoderLoadGovernor, ticks: Int, share: Double, late: Bool = false) {
        for _ in 0..<ticks { governor.record(workNanoseconds: Int(Double(Self.tick) * share), tickNanoseconds: Self.tick, late: late) }
    }

    @Test func startsAtTheTop() {
        #expect(EncoderLoadGovernor().ceiling == EncoderLoadGovernor.highest)
    }

    @Test func aBusyClockStepsDownOneStepPerTwoHundredMilliseconds() {
        var governor = EncoderLoadGovernor()
        run(&governor, ticks: 50, share: 0.9)
        // The average passes the threshold within a few ticks, then one step per 10 ticks.
        #expect((5...6).contains(EncoderLoadGovernor.highest - governor.ceiling), "ceiling \(governor.ceiling)")
        run(&governor, ticks: 200, share: 0.9)
        #expect(governor.ceiling == EncoderLoadGovernor.lowest)
    }

    @Test func lateTicksStepDownEvenWhenTheWorkIsSmall() {
        var governor = EncoderLoadGovernor()
        run(&governor, ticks: 21, share: 0.05, late: true)
        #expect(governor.ceiling == EncoderLoadGovernor.highest - 3)
    }

    @Test func roomRaisesItSlowlyAndABusyTickStartsTheWaitAgain() {
        var governor = EncoderLoadGovernor()
        run(&governor, ticks: 300, share: 0.9)
        #expect(governor.ceiling == EncoderLoadGovernor.lowest)
        run(&governor, ticks: 60, share: 0.1)  // the average falls below the room threshold
        let settled = governor.ceiling
        run(&governor, ticks: 149, share: 0.1)
        #expect(governor.ceiling == settled + 1)
        run(&governor, ticks: 100, share: 0.1)
        run(&governor, ticks: 1, share: 0.1, late: true)
        let afterLate = governor.ceiling
        run(&governor, ticks: 140, share: 0.1)
        #expect(governor.ceiling == afterLate, "a late tick restarts the 3 s wait")
    }

    @Test func aMiddlingLoadHoldsTheCeilingWhereItIs() {
        var governor = EncoderLoadGovernor()
        run(&governor, ticks: 40, share: 0.9)
        run(&governor, ticks: 20, share: 0.35)  // the average settles between the two thresholds
        let lowered = governor.ceiling
        #expect(lowered < EncoderLoadGovernor.highest)
        run(&governor, ticks: 500, share: 0.35)
        #expect(governor.ceiling == lowered)
    }

    @Test func anOpusEncoderTakesTheCeilingButNeverRisesAboveItsOwnSetting() throws {
        let encoder = try OpusEncoder(settings: OpusSettings(complexity: 7))
        #expect(encoder.complexity == 7)
        encoder.limitComplexity(to: 10)
        #expect(encoder.complexity == 7)
        encoder.limitComplexity(to: 2)
        #expect(encoder.complexity == 2)
        // Frames still code and decode after the change.
        let tone = (0..<960).map { Int16(6000 * sin(2 * Double.pi * 440 * Double($0) / 48000)) }
        var payload = [UInt8](repeating: 0, count: 1500)
        let length = try tone.withUnsafeBufferPointer { pcm in try payload.withUnsafeMutableBytes { try encoder.encode(pcm, into: $0) } }
        #expect(length > 2)
        let decoder = try OpusDecoder()
        var decoded = [Int16](repeating: 0, count: 960)
        let samples = try payload.withUnsafeBytes { bytes in
            try decoded.withUnsafeMutableBufferPointer { try decoder.decode(UnsafeRawBufferPointer(rebasing: bytes[0..<length]), into: $0) }
        }
        #expect(samples == 960)
        encoder.limitComplexity(to: 9)
        #expect(encoder.complexity == 7)
    }

    /// A clock whose ticks take most of their 20 ms lowers its calls' encoders; a call that
    /// asked for a fixed complexity keeps it.
    @Test(.serialized, arguments: [true, false]) func aSlowClockLowersItsCallsEncoders(follows: Bool) throws {
        let pair = try SessionPair(
            codec: .opus(payloadType: 111, settings: OpusSettings()), sourceA: ToneSource(frequency: 440, sampleRate: 48000),
            sourceB: SlowSource(milliseconds: 14), secure: false, adjustB: { $0.followsClockComplexity = follows })
        defer { pair.finish() }
        #expect(waitUntil(seconds: 10) { pair.clock.encoderComplexityCeiling <= 5 && pair.b.opusComplexity != nil })
        #expect(pair.clock.busyShare > 0.45)
        let expected = follows ? pair.clock.encoderComplexityCeiling : OpusSettings.defaultComplexity
        #expect(waitUntil(seconds: 5) { pair.b.opusComplexity.map { follows ? $0 <= 5 : $0 == expected } ?? false }, "B at \(String(describing: pair.b.opusComplexity))")
    }
}
