import Foundation

/// A continuous sine tone (`tone:440`), phase-continuous across frames.
package final class ToneSource: AudioSource {
    package let frequency: Double
    package let sampleRate: Int
    package let amplitude: Double
    private var phase = 0.0

    package init(frequency: Double, sampleRate: Int, amplitude: Double = 0.3) {
        self.frequency = frequency
        self.sampleRate = sampleRate
        self.amplitude = amplitude
    }

    package func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Bool {
        let step = 2 * Double.pi * frequency / Double(sampleRate)
        for index in frame.indices {
            frame[index] = Int16(amplitude * 32767 * sin(phase))
            phase += step
            if phase > 2 * Double.pi { phase -= 2 * Double.pi }
        }
        return true
    }
}

package final class SilenceSource: AudioSource {
    package init() {}

    package func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Bool {
        frame.update(repeating: 0)
        return true
    }
}

final class NullSink: AudioSink {
    init() {}
    func write(remote: UnsafeBufferPointer<Int16>, local: UnsafeBufferPointer<Int16>) {}
    func close() {}
}
