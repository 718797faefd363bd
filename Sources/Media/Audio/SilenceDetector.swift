/// Tells when what a call receives has stayed quieter than `thresholdDBFS` for `length` without
/// a break: the end of a greeting, or a line that went quiet. One louder frame starts the count
/// again. Fed on the media clock thread: no allocation, no lock; `heard` runs once, there, and
/// must only signal.
/// Unchecked: fed only on the media clock thread, with no lock per frame.
package final class SilenceDetector: ReceivedAudioListener, @unchecked Sendable {
    static let defaultThresholdDBFS = SpeechOnsetDetector.defaultThresholdDBFS

    private let threshold: Double
    private let lengthSamples: Int
    private let heard: @Sendable () -> Void
    private var quiet = 0
    private var fired = false

    package init(sampleRate: Int, length: Duration, thresholdDBFS: Double = defaultThresholdDBFS, heard: @escaping @Sendable () -> Void) {
        threshold = AudioMeasure.meanSquare(dBFS: thresholdDBFS)
        lengthSamples = max(1, AudioMeasure.samples(length, sampleRate))
        self.heard = heard
    }

    var heardSilence: Bool { fired }

    package func listen(to frame: UnsafeBufferPointer<Int16>) {
        guard !fired, !frame.isEmpty else { return }
        if AudioMeasure.meanSquare(of: frame) < threshold {
            quiet += frame.count
        } else {
            quiet = 0
        }
        if quiet >= lengthSamples {
            fired = true
            heard()
        }
    }
}
