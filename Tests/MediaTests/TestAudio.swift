import Foundation
import Media

/// Test signals and measurements.
enum TestAudio {
    static func sine(_ frequency: Double, sampleRate: Int, count: Int, amplitude: Double = 12000, phase: Int = 0) -> [Int16] {
        (0..<count).map { Int16(amplitude * sin(2 * Double.pi * frequency * Double($0 + phase) / Double(sampleRate))) }
    }

    static func dominantFrequency(_ samples: [Int16], sampleRate: Int, highest: Double = 4000) -> Double {
        samples.withUnsafeBufferPointer { Goertzel.dominantFrequency(in: $0, sampleRate: sampleRate, highest: highest) }
    }

    static func rms(_ samples: ArraySlice<Int16>) -> Double {
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
    }

    /// Signal-to-noise ratio in dB of `decoded` against `reference`, after the best alignment
    /// within `maxLag` samples (codecs add delay).
    static func snr(reference: [Int16], decoded: [Int16], maxLag: Int) -> Double {
        var best = -Double.infinity
        for lag in 0...maxLag {
            var signal = 0.0
            var noise = 0.0
            for index in 0..<(reference.count - maxLag) {
                let r = Double(reference[index])
                let d = Double(decoded[index + lag])
                signal += r * r
                noise += (r - d) * (r - d)
            }
            best = max(best, 10 * log10(signal / max(noise, 1)))
        }
        return best
    }
}
