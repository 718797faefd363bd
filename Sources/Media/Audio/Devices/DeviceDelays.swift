import Synchronization

/// The delay device audio spends in this process's buffers, averaged over every media tick
/// (docs/audio.md, "Latency"): capture is the age of a frame's oldest sample when voice
/// processing hands the frame on, of which the server's record latency is the device's part;
/// playback is how long a sample added to the ring waits before it is heard. Kept with relaxed
/// atomic adds, nothing more, on the media clock.
package final class DeviceDelays: Sendable {
    package static let shared = DeviceDelays()

    private let captureMicroseconds = Atomic<Int>(0)
    private let captureDeviceMicroseconds = Atomic<Int>(0)
    private let captureQueuedMicroseconds = Atomic<Int>(0)
    private let captureTicks = Atomic<Int>(0)
    private let playbackMicroseconds = Atomic<Int>(0)
    private let playbackTicks = Atomic<Int>(0)

    func addCapture(microseconds: Int, device: Int, queued: Int) {
        captureMicroseconds.add(microseconds, ordering: .relaxed)
        captureDeviceMicroseconds.add(device, ordering: .relaxed)
        captureQueuedMicroseconds.add(queued, ordering: .relaxed)
        captureTicks.add(1, ordering: .relaxed)
    }

    func addPlayback(microseconds: Int) {
        playbackMicroseconds.add(microseconds, ordering: .relaxed)
        playbackTicks.add(1, ordering: .relaxed)
    }

    /// Mean capture delay in milliseconds; nil when no microphone ran.
    package var captureMilliseconds: Double? { Self.mean(captureMicroseconds, captureTicks) }
    /// Of that, the mean record latency the sound server reported (source and stream buffers).
    package var captureDeviceMilliseconds: Double? { Self.mean(captureDeviceMicroseconds, captureTicks) }
    /// Of that, what waited on the ring and in the resampler when the media clock took a frame
    /// (the frame included); the rest is the time since the server's thread last delivered.
    package var captureQueuedMilliseconds: Double? { Self.mean(captureQueuedMicroseconds, captureTicks) }
    /// Mean playback delay in milliseconds; nil when no speaker ran.
    package var playbackMilliseconds: Double? { Self.mean(playbackMicroseconds, playbackTicks) }

    private static func mean(_ sum: borrowing Atomic<Int>, _ count: borrowing Atomic<Int>) -> Double? {
        let ticks = count.load(ordering: .relaxed)
        guard ticks > 0 else { return nil }
        return Double(sum.load(ordering: .relaxed)) / 1000 / Double(ticks)
    }
}
