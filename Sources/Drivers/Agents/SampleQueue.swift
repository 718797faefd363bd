import Parley

/// A bounded queue of 16-bit samples, allocated once, that drops its oldest samples to make room
/// (counted). Not thread-safe: `AgentBridge` keeps each queue inside its lock.
final class SampleQueue {
    private let storage: UnsafeMutableBufferPointer<Int16>
    /// Samples ever appended and ever removed (read or dropped).
    private(set) var appended = 0
    private(set) var removed = 0
    /// Samples dropped oldest-first because the queue was full, or cleared.
    private(set) var dropped = 0

    init(capacity: Int) {
        storage = .allocate(capacity: max(capacity, 1))
        storage.initialize(repeating: 0)
    }

    deinit { storage.deallocate() }

    var count: Int { appended - removed }
    var capacity: Int { storage.count }

    func append(_ samples: UnsafeBufferPointer<Int16>) {
        // Only the newest `capacity` of a huge batch can ever be kept.
        let kept = samples.count > storage.count ? UnsafeBufferPointer(rebasing: samples[(samples.count - storage.count)...]) : samples
        dropped += samples.count - kept.count
        let overflow = count + kept.count - storage.count
        if overflow > 0 {
            removed += overflow
            dropped += overflow
        }
        copyIn(kept, at: appended % storage.count)
        appended += kept.count
    }

    /// Moves up to `frame.count` samples out; returns how many.
    func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Int {
        let taken = min(count, frame.count)
        // At most two runs: to the end of the storage, then from its start.
        let start = removed % storage.count
        let first = min(taken, storage.count - start)
        _ = UnsafeMutableBufferPointer(rebasing: frame[..<first]).update(fromContentsOf: storage[start..<(start + first)])
        if taken > first {
            _ = UnsafeMutableBufferPointer(rebasing: frame[first..<taken]).update(fromContentsOf: storage[..<(taken - first)])
        }
        removed += taken
        return taken
    }

    /// Copies `samples` (no more than the capacity) into the ring from `start`, wrapping once.
    private func copyIn(_ samples: UnsafeBufferPointer<Int16>, at start: Int) {
        let first = min(samples.count, storage.count - start)
        _ = UnsafeMutableBufferPointer(rebasing: storage[start..<(start + first)]).update(fromContentsOf: samples[..<first])
        if samples.count > first {
            _ = UnsafeMutableBufferPointer(rebasing: storage[..<(samples.count - first)]).update(fromContentsOf: samples[first...])
        }
    }

    /// Drops everything waiting (not counted as overflow); returns how many samples.
    func clear() -> Int {
        let waiting = count
        removed = appended
        return waiting
    }
}
