/// Something that watches what a call receives, one frame at a time, on the media clock thread:
/// it must not allocate, lock or wait, and it reports by running a callback that only signals.
package protocol ReceivedAudioListener: AnyObject, Sendable {
    func listen(to frame: UnsafeBufferPointer<Int16>)
}

/// Sample counts and frame energy shared by the listeners.
enum AudioMeasure {
    static func samples(_ duration: Duration, _ sampleRate: Int) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * sampleRate + Int(attoseconds / 1_000_000_000_000) * sampleRate / 1_000_000
    }

    /// The mean square of a frame at `dBFS`: full-scale 16-bit audio has a mean square of 32768².
    static func meanSquare(dBFS: Double) -> Double {
        32768.0 * 32768.0 * pow(10, dBFS / 10)
    }

    static func meanSquare(of frame: UnsafeBufferPointer<Int16>) -> Double {
        var sum = 0.0
        for sample in frame { sum += Double(sample) * Double(sample) }
        return sum / Double(frame.count)
    }
}

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif
