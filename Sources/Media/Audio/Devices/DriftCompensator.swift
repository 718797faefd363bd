import CSpeexDSP

/// Keeps a device ring at its target fill although the sound card's clock and the media clock
/// drift apart: the audio crossing the ring is resampled by a ratio a little above or below one,
/// steered by how far the fill is from the target (docs/audio.md, "Clock drift"). A fill far off
/// target (a stall, a start) is cut back at once instead, so delay cannot grow without bound.
final class DriftCompensator {
    /// The most the ratio leaves 1: 0.5 %, far above real crystal drift (about 0.01 %) and below
    /// what an ear hears as a pitch change.
    static let maximumAdjustment = 0.005
    /// The fill error is averaged over about this many ticks before it steers the ratio.
    private static let smoothing = 0.02
    private static let stepsPerUnit = 50_000

    let targetFill: Int
    /// A fill this far above the target is cut back to the target at once.
    let resetExcess: Int
    private let resampler: OpaquePointer
    private let rate: UInt32
    private var smoothedError = 0.0
    private var appliedSteps = 0
    /// Input taken from a ring before resampling (capture) or output of a resampling (playback).
    private let scratch: UnsafeMutableBufferPointer<Int16>
    private(set) var resets = 0
    private(set) var underruns = 0
    private(set) var overflows = 0

    /// Input samples the resampler's filter has taken off the ring but not yet given out: its
    /// share of the capture delay.
    var heldSamples: Int { Int(speex_resampler_get_input_latency(resampler)) }

    /// The ratio applied now, input samples per output sample.
    private(set) var ratio = 1.0

    init(sampleRate: Int, frameSamples: Int, targetFill: Int, resetExcess: Int) throws(AudioError) {
        var error: Int32 = 0
        guard let resampler = speex_resampler_init(1, UInt32(sampleRate), UInt32(sampleRate), 3, &error) else {
            throw .resampler("speex_resampler_init error \(error)")
        }
        self.resampler = resampler
        self.rate = UInt32(sampleRate)
        self.targetFill = targetFill
        self.resetExcess = resetExcess
        scratch = .allocate(capacity: frameSamples * 2 + 64)
        scratch.initialize(repeating: 0)
        speex_resampler_skip_zeros(resampler)
    }

    deinit {
        speex_resampler_destroy(resampler)
        scratch.deallocate()
    }

    /// Steers the ratio (input samples per output sample) from the fill seen now. A fill above
    /// target raises it on either side: capture then takes more from the ring per frame,
    /// playback puts fewer on it.
    private func steer(fill: Int) {
        let error = Double(fill - targetFill) / Double(max(targetFill, 1))
        smoothedError += (error - smoothedError) * Self.smoothing
        let adjustment = max(-Self.maximumAdjustment, min(Self.maximumAdjustment, smoothedError * 0.01))
        ratio = 1 + adjustment
        // Work in steps of 1/50 000 so the resampler's filter is not rebuilt for noise. Not
        // finer: speexdsp 1.2.1 rescales its position by the new denominator in 32 bits, and
        // where the old and new reduced denominators multiply past 2^32 it returns an overflow
        // after changing the rate but before rebuilding the filter, so the next call reads
        // outside the filter (a crash at 1/100 000 steps, DeviceAudioTests).
        let steps = Int((ratio - 1) * Double(Self.stepsPerUnit))
        guard steps != appliedSteps else { return }
        appliedSteps = steps
        speex_resampler_set_rate_frac(resampler, UInt32(Self.stepsPerUnit + steps), UInt32(Self.stepsPerUnit), rate, rate)
    }

    /// Capture: fills `frame` from `ring` at the steered ratio. What the ring lacks is silence.
    func pull(from ring: SampleRing, into frame: UnsafeMutableBufferPointer<Int16>) {
        var fill = ring.count
        if fill > targetFill + resetExcess {
            ring.discard(fill - targetFill)
            fill = targetFill
            smoothedError = 0
            resets += 1
        }
        steer(fill: fill)
        let available = ring.peek(into: scratch)
        var inputLength = UInt32(available)
        var outputLength = UInt32(frame.count)
        speex_resampler_process_int(resampler, 0, scratch.baseAddress, &inputLength, frame.baseAddress, &outputLength)
        ring.discard(Int(inputLength))
        let produced = Int(outputLength)
        if produced < frame.count {
            underruns += 1
            (frame.baseAddress! + produced).update(repeating: 0, count: frame.count - produced)
        }
    }

    /// Playback: resamples `frame` at the steered ratio onto `ring`. What does not fit is lost.
    func push(_ frame: UnsafeBufferPointer<Int16>, onto ring: SampleRing) {
        let fill = ring.count
        if fill > targetFill + resetExcess {
            // The consumer side owns the ring's read position, so an excess is left for it; the
            // frame is dropped instead so the fill falls back.
            resets += 1
            smoothedError = 0
            return
        }
        steer(fill: fill)
        var inputLength = UInt32(frame.count)
        var outputLength = UInt32(scratch.count)
        speex_resampler_process_int(resampler, 0, frame.baseAddress, &inputLength, scratch.baseAddress, &outputLength)
        let produced = Int(outputLength)
        if ring.write(UnsafeBufferPointer(rebasing: scratch[0..<produced])) < produced { overflows += 1 }
    }
}
