import Synchronization

/// Decoded audio handed from one call's media clock to another's, for calls merged into a
/// three-way call (docs/architecture.md, "Merged calls"). One thread writes (the clock
/// that decodes the far end's audio) and one thread reads (the clock that sends or plays it):
/// the two positions are atomics, so neither side waits for the other and no lock is shared
/// between shards. Storage is allocated once; nothing is allocated per frame.
/// Unchecked: raw storage shared by one producer and one consumer thread, ordered by the two atomics; no lock on the media path.
package final class FrameRing: @unchecked Sendable {
    private let storage: UnsafeMutableBufferPointer<Int16>
    /// Samples ever written and ever consumed; their difference is what waits in the ring.
    private let written = Atomic<Int>(0)
    private let consumed = Atomic<Int>(0)
    /// The most the reader lets wait before it skips the oldest: two clocks that drift apart
    /// must not let the delay grow.
    package let maximumBacklog: Int

    /// `capacity` samples of storage; the reader keeps at most `maximumBacklog` waiting.
    package init(capacity: Int, maximumBacklog: Int) {
        precondition(capacity > 0 && maximumBacklog > 0 && maximumBacklog <= capacity)
        storage = .allocate(capacity: capacity)
        storage.initialize(repeating: 0)
        self.maximumBacklog = maximumBacklog
    }

    deinit { storage.deallocate() }

    /// Samples waiting to be read.
    package var backlog: Int { written.load(ordering: .acquiring) - consumed.load(ordering: .acquiring) }

    /// Writer side: appends what fits; a full ring (a reader that stopped) drops the rest.
    package func write(_ samples: UnsafeBufferPointer<Int16>) {
        let end = written.load(ordering: .relaxed)
        let start = consumed.load(ordering: .acquiring)
        let count = min(samples.count, storage.count - (end - start))
        guard count > 0 else { return }
        for index in 0..<count { storage[(end + index) % storage.count] = samples[index] }
        written.store(end + count, ordering: .releasing)
    }

    /// Reader side: adds up to `frame.count` waiting samples onto `frame` (saturating), after
    /// skipping what is older than `maximumBacklog`. Returns how many it mixed.
    @discardableResult
    package func mix(into frame: UnsafeMutableBufferPointer<Int16>) -> Int {
        let end = written.load(ordering: .acquiring)
        var start = consumed.load(ordering: .relaxed)
        if end - start > maximumBacklog { start = end - maximumBacklog }
        let count = min(end - start, frame.count)
        for index in 0..<count {
            frame[index] = Int16(clamping: Int32(frame[index]) + Int32(storage[(start + index) % storage.count]))
        }
        consumed.store(start + count, ordering: .releasing)
        return count
    }
}
