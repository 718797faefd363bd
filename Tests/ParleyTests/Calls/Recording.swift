import Foundation
import Media

/// Reads back what a call recorded and measures it.
enum Recording {
    static func samples(_ path: String, sampleRate: Int = 48000) throws -> [Int16] {
        let source = try WAVFileSource(path: path, sampleRate: sampleRate)
        var samples: [Int16] = []
        var frame = [Int16](repeating: 0, count: sampleRate / 50)
        // Bounded: at most ten minutes of audio.
        for _ in 0..<(50 * 600) {
            let more = frame.withUnsafeMutableBufferPointer { source.read(into: $0) }
            guard more else { break }
            samples += frame
        }
        return samples
    }

    /// The dominant frequency of the first `seconds` of sound (after leading silence), or nil
    /// when the recording holds no sound at all.
    static func firstToneFrequency(_ path: String, seconds: Double = 0.5, sampleRate: Int = 48000) throws -> Double? {
        let all = try samples(path, sampleRate: sampleRate)
        guard let start = all.firstIndex(where: { abs(Int($0)) > 1000 }) else { return nil }
        // Skip the first 100 ms of sound: codec and jitter-buffer start-up.
        let from = min(all.count, start + sampleRate / 10)
        let window = Array(all[from..<min(all.count, from + Int(seconds * Double(sampleRate)))])
        guard window.count >= sampleRate / 10 else { return nil }
        return window.withUnsafeBufferPointer { Goertzel.dominantFrequency(in: $0, sampleRate: sampleRate) }
    }
}
