import Foundation

/// Tells when a caller starts to speak, from the energy of what the call receives: a frame
/// louder than `thresholdDBFS` counts towards `attack`; quieter frames shorter than `hangover`
/// (the gaps between syllables) do not reset the count, longer ones do. Fed on the media clock
/// thread: no allocation, no lock; `onset` runs once, there, and must only signal.
public final class SpeechOnsetDetector: @unchecked Sendable {
    public static let defaultThresholdDBFS = -40.0
    public static let defaultAttack = Duration.milliseconds(60)
    public static let defaultHangover = Duration.milliseconds(150)

    private let threshold: Double
    private let attackSamples: Int
    private let hangoverSamples: Int
    private let onset: @Sendable () -> Void
    private var loud = 0
    private var quiet = 0
    private var fired = false

    public init(sampleRate: Int, thresholdDBFS: Double = defaultThresholdDBFS, attack: Duration = defaultAttack,
                hangover: Duration = defaultHangover, onset: @escaping @Sendable () -> Void) {
        // Mean square of full-scale 16-bit audio is 32768²; dBFS compares against that.
        threshold = 32768.0 * 32768.0 * pow(10, thresholdDBFS / 10)
        attackSamples = Self.samples(attack, sampleRate)
        hangoverSamples = Self.samples(hangover, sampleRate)
        self.onset = onset
    }

    /// Whether speech has started (and `onset` has run).
    public var heardSpeech: Bool { fired }

    public func listen(to frame: UnsafeBufferPointer<Int16>) {
        guard !fired, !frame.isEmpty else { return }
        var sum = 0.0
        for sample in frame { sum += Double(sample) * Double(sample) }
        if sum / Double(frame.count) >= threshold {
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

    private static func samples(_ duration: Duration, _ sampleRate: Int) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * sampleRate + Int(attoseconds / 1_000_000_000_000) * sampleRate / 1_000_000
    }
}
