import Foundation

/// A continuous sine tone (`tone:440`), phase-continuous across frames.
public final class ToneSource: AudioSource {
    public let frequency: Double
    public let sampleRate: Int
    public let amplitude: Double
    private var phase = 0.0

    public init(frequency: Double, sampleRate: Int, amplitude: Double = 0.3) {
        self.frequency = frequency
        self.sampleRate = sampleRate
        self.amplitude = amplitude
    }

    public func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Bool {
        let step = 2 * Double.pi * frequency / Double(sampleRate)
        for index in frame.indices {
            frame[index] = Int16(amplitude * 32767 * sin(phase))
            phase += step
            if phase > 2 * Double.pi { phase -= 2 * Double.pi }
        }
        return true
    }
}

public final class SilenceSource: AudioSource {
    public init() {}

    public func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Bool {
        frame.update(repeating: 0)
        return true
    }
}

public final class NullSink: AudioSink {
    public init() {}
    public func write(remote: UnsafeBufferPointer<Int16>, local: UnsafeBufferPointer<Int16>) {}
    public func close() {}
}
