import Synchronization

/// A single-producer single-consumer ring of mono samples between the sound server's thread and
/// the media clock: neither side ever waits for the other. The producer moves `written`, the
/// consumer moves `consumed`; each reads the other's with acquire ordering.
/// Unchecked: one producer and one consumer thread, ordered by the two atomics; no lock on the media path.
final class SampleRing: @unchecked Sendable {
    private let storage: UnsafeMutablePointer<Int16>
    private let capacity: Int
    private let mask: Int
    private let written = Atomic<Int>(0)
    private let consumed = Atomic<Int>(0)

    /// Room for at least `minimumCapacity` samples (rounded up to a power of two).
    init(minimumCapacity: Int) {
        var size = 1
        while size < minimumCapacity { size <<= 1 }
        capacity = size
        mask = size - 1
        storage = .allocate(capacity: size)
        storage.initialize(repeating: 0, count: size)
    }

    deinit { storage.deallocate() }

    /// Samples waiting to be read.
    var count: Int { written.load(ordering: .acquiring) &- consumed.load(ordering: .acquiring) }

    /// Producer: appends up to `samples.count` samples (or zeros when `samples` has no base);
    /// returns how many fit.
    @discardableResult
    func write(_ samples: UnsafeBufferPointer<Int16>) -> Int {
        write(count: samples.count) { destination, offset, length in
            if let base = samples.baseAddress {
                destination.update(from: base + offset, count: length)
            } else {
                destination.update(repeating: 0, count: length)
            }
        }
    }

    /// Producer: appends `count` zeros (a hole in the captured stream), as many as fit.
    @discardableResult
    func writeSilence(count: Int) -> Int {
        write(count: count) { destination, _, length in destination.update(repeating: 0, count: length) }
    }

    private func write(count requested: Int, _ copy: (UnsafeMutablePointer<Int16>, Int, Int) -> Void) -> Int {
        let head = written.load(ordering: .relaxed)
        let tail = consumed.load(ordering: .acquiring)
        let total = min(requested, capacity - (head &- tail))
        var done = 0
        while done < total {
            let index = (head &+ done) & mask
            let length = min(total - done, capacity - index)
            copy(storage + index, done, length)
            done += length
        }
        written.store(head &+ total, ordering: .releasing)
        return total
    }

    /// Consumer: copies up to `destination.count` samples without taking them.
    func peek(into destination: UnsafeMutableBufferPointer<Int16>) -> Int {
        let tail = consumed.load(ordering: .relaxed)
        let head = written.load(ordering: .acquiring)
        let total = min(destination.count, head &- tail)
        var done = 0
        while done < total {
            let index = (tail &+ done) & mask
            let length = min(total - done, capacity - index)
            (destination.baseAddress! + done).update(from: storage + index, count: length)
            done += length
        }
        return total
    }

    /// Consumer: takes `count` samples (at most what is there) off the ring.
    func discard(_ count: Int) {
        let tail = consumed.load(ordering: .relaxed)
        let head = written.load(ordering: .acquiring)
        consumed.store(tail &+ min(count, head &- tail), ordering: .releasing)
    }

    /// Consumer: takes up to `destination.count` samples.
    func read(into destination: UnsafeMutableBufferPointer<Int16>) -> Int {
        let count = peek(into: destination)
        discard(count)
        return count
    }
}
