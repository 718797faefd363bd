/// Tells when what a call receives holds a tone of `frequency` for `minimum` without a break (a
/// beep, a ring-back, an IVR's tone prompt): each frame louder than `thresholdDBFS` whose power
/// at the frequency (Goertzel) is at least `share` of its whole power counts, any other frame
/// starts the count again. A pure tone puts about half of a frame's power in its Goertzel bin;
/// speech and noise spread theirs. Fed on the media clock thread: no allocation, no lock; `heard`
/// runs once, there, and must only signal.
/// Unchecked: fed only on the media clock thread, with no lock per frame.
package final class ToneDetector: ReceivedAudioListener, @unchecked Sendable {
    package static let defaultMinimum = Duration.milliseconds(100)
    static let defaultThresholdDBFS = -45.0
    /// A pure tone gives 0.5; this leaves room for codec noise and a frequency a few Hz off.
    static let share = 0.3

    package let frequency: Double
    private let sampleRate: Int
    private let threshold: Double
    private let minimumSamples: Int
    private let heard: @Sendable () -> Void
    private var toneSamples = 0
    private var fired = false

    package init(sampleRate: Int, frequency: Double, minimum: Duration = defaultMinimum, thresholdDBFS: Double = defaultThresholdDBFS,
                heard: @escaping @Sendable () -> Void) {
        self.frequency = frequency
        self.sampleRate = sampleRate
        threshold = AudioMeasure.meanSquare(dBFS: thresholdDBFS)
        minimumSamples = max(1, AudioMeasure.samples(minimum, sampleRate))
        self.heard = heard
    }

    var heardTone: Bool { fired }

    package func listen(to frame: UnsafeBufferPointer<Int16>) {
        guard !fired, !frame.isEmpty else { return }
        if holdsTone(frame) {
            toneSamples += frame.count
        } else {
            toneSamples = 0
        }
        if toneSamples >= minimumSamples {
            fired = true
            heard()
        }
    }

    private func holdsTone(_ frame: UnsafeBufferPointer<Int16>) -> Bool {
        let meanSquare = AudioMeasure.meanSquare(of: frame)
        guard meanSquare >= threshold else { return false }
        let power = Goertzel.power(of: frequency, in: frame, sampleRate: sampleRate)
        // Energy N·P against a Goertzel power of about N²·P/2 for a tone of power P.
        let count = Double(frame.count)
        return power / (count * count * meanSquare) >= Self.share
    }
}
