import Testing

@testable import Drivers
@testable import Parley

/// The agent bridge's bounded ring of samples (SampleQueue.swift): order kept across the wrap,
/// oldest dropped and counted when full, clear.
@Suite struct SampleQueueTests {
    private func append(_ samples: [Int16], to queue: SampleQueue) {
        samples.withUnsafeBufferPointer { queue.append($0) }
    }

    private func read(_ count: Int, from queue: SampleQueue) -> [Int16] {
        var out = [Int16](repeating: -1, count: count)
        let taken = out.withUnsafeMutableBufferPointer { queue.read(into: $0) }
        return Array(out[..<taken])
    }

    @Test func samplesComeOutInOrderAcrossTheWrap() {
        let queue = SampleQueue(capacity: 7)
        var next: Int16 = 0
        var expected: Int16 = 0
        // Appends of 5 and reads of 4 walk the ring's start around it many times.
        for _ in 0..<20 {
            append((0..<5).map { _ in defer { next += 1 }; return next }, to: queue)
            let out = read(4, from: queue)
            #expect(out == (0..<4).map { expected + Int16($0) })
            expected += 4
            let waiting = queue.count
            if waiting >= 3 {
                #expect(read(waiting, from: queue) == (0..<waiting).map { expected + Int16($0) })
                expected += Int16(waiting)
            }
        }
        #expect(queue.dropped == 0)
    }

    @Test func aFullQueueDropsItsOldestAndCountsThem() {
        let queue = SampleQueue(capacity: 4)
        append([1, 2, 3], to: queue)
        append([4, 5, 6], to: queue)
        #expect(queue.dropped == 2)
        #expect(read(10, from: queue) == [3, 4, 5, 6])
        append(Array(10..<20), to: queue)
        #expect(queue.dropped == 8)
        #expect(read(10, from: queue) == [16, 17, 18, 19])
    }

    @Test func clearEmptiesTheQueueWithoutCountingADrop() {
        let queue = SampleQueue(capacity: 8)
        append([1, 2, 3, 4, 5], to: queue)
        _ = read(2, from: queue)
        #expect(queue.clear() == 3)
        #expect(queue.count == 0)
        #expect(queue.dropped == 0)
        append([7, 8], to: queue)
        #expect(read(4, from: queue) == [7, 8])
    }
}
