/// The Goertzel algorithm: the power of one frequency in a block of samples, without a full FFT.
package enum Goertzel {
    /// Power of `frequency` in `samples` (normalised so a full-scale sine gives about 0.25 · N²/32768²·32768²).
    package static func power(of frequency: Double, in samples: UnsafeBufferPointer<Int16>, sampleRate: Int) -> Double {
        let coefficient = coefficient(of: frequency, sampleRate: sampleRate)
        var previous = 0.0
        var beforePrevious = 0.0
        for sample in samples {
            let current = Double(sample) + coefficient * previous - beforePrevious
            beforePrevious = previous
            previous = current
        }
        return previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
    }

    static func coefficient(of frequency: Double, sampleRate: Int) -> Double {
        2 * cos(2 * Double.pi * frequency / Double(sampleRate))
    }

    /// The strongest frequency between `lowest` and `highest` Hz: a coarse scan in `step` Hz,
    /// then a fine one in `step / 20` Hz around the best coarse bin.
    package static func dominantFrequency(in samples: UnsafeBufferPointer<Int16>, sampleRate: Int, lowest: Double = 50, highest: Double = 4000, step: Double = 5) -> Double {
        func best(from start: Double, to end: Double, by increment: Double) -> Double {
            var bestFrequency = start
            var bestPower = -1.0
            var frequency = start
            while frequency <= end {
                let value = power(of: frequency, in: samples, sampleRate: sampleRate)
                if value > bestPower {
                    bestPower = value
                    bestFrequency = frequency
                }
                frequency += increment
            }
            return bestFrequency
        }
        let coarse = best(from: lowest, to: highest, by: step)
        return best(from: max(lowest, coarse - step), to: min(highest, coarse + step), by: step / 20)
    }
}

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif
