import Synchronization

/// The delay device audio spends in this process's buffers, averaged over every media tick
/// (docs/audio.md, "Latency"): capture is the sound server's record latency plus the ring's
/// fill when the media clock takes a frame; playback is the ring's fill plus the server's
/// playback latency. Kept with relaxed atomic adds, nothing more, on the media clock.
package final class DeviceDelays: Sendable {
    package static let shared = DeviceDelays()

    private let captureMicroseconds = Atomic<Int>(0)
    private let captureTicks = Atomic<Int>(0)
    private let playbackMicroseconds = Atomic<Int>(0)
    private let playbackTicks = Atomic<Int>(0)

    func addCapture(milliseconds: Double) {
        captureMicroseconds.add(Int(milliseconds * 1000), ordering: .relaxed)
        captureTicks.add(1, ordering: .relaxed)
    }

    func addPlayback(milliseconds: Double) {
        playbackMicroseconds.add(Int(milliseconds * 1000), ordering: .relaxed)
        playbackTicks.add(1, ordering: .relaxed)
    }

    /// Mean capture delay in milliseconds; nil when no microphone ran.
    package var captureMilliseconds: Double? { Self.mean(captureMicroseconds, captureTicks) }
    /// Mean playback delay in milliseconds; nil when no speaker ran.
    package var playbackMilliseconds: Double? { Self.mean(playbackMicroseconds, playbackTicks) }

    private static func mean(_ sum: borrowing Atomic<Int>, _ count: borrowing Atomic<Int>) -> Double? {
        let ticks = count.load(ordering: .relaxed)
        guard ticks > 0 else { return nil }
        return Double(sum.load(ordering: .relaxed)) / 1000 / Double(ticks)
    }
}
