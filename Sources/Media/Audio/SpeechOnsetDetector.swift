import Foundation

/// Tells when a caller starts to speak, from the energy of what the call receives: a frame
/// louder than `thresholdDBFS` counts towards `attack`; quieter frames shorter than `hangover`
/// (the gaps between syllables) do not reset the count, longer ones do. Fed on the media clock
/// thread: no allocation, no lock; `onset` runs once, there, and must only signal.
/// Unchecked: fed only on the media clock thread, with no lock per frame.
package final class SpeechOnsetDetector: ReceivedAudioListener, @unchecked Sendable {
    static let defaultThresholdDBFS = -40.0
    static let defaultAttack = Duration.milliseconds(60)
    static let defaultHangover = Duration.milliseconds(150)

    private let threshold: Double
    private let attackSamples: Int
    private let hangoverSamples: Int
    private let onset: @Sendable () -> Void
    private var loud = 0
    private var quiet = 0
    private var fired = false

    package init(sampleRate: Int, thresholdDBFS: Double = defaultThresholdDBFS, attack: Duration = defaultAttack,
                hangover: Duration = defaultHangover, onset: @escaping @Sendable () -> Void) {
        // Mean square of full-scale 16-bit audio is 32768²; dBFS compares against that.
        threshold = AudioMeasure.meanSquare(dBFS: thresholdDBFS)
        attackSamples = AudioMeasure.samples(attack, sampleRate)
        hangoverSamples = AudioMeasure.samples(hangover, sampleRate)
        self.onset = onset
    }

    /// Whether speech has started (and `onset` has run).
    var heardSpeech: Bool { fired }

    package func listen(to frame: UnsafeBufferPointer<Int16>) {
        guard !fired, !frame.isEmpty else { return }
        if AudioMeasure.meanSquare(of: frame) >= threshold {
            loud += frame.count
            quiet = 0
        } else {
            quiet += frame.count
            if quiet > hangoverSamples { loud = 0 }
        }
        if loud >= attackSamples {
            fired = true
            onset()
        }
    }
}
