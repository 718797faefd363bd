import Foundation
import Media
import Testing

/// The ring that hands decoded frames between two calls' clocks (docs/architecture.md, "Merged calls").
@Suite struct FrameRingTests {
    static func frame(_ value: Int16, count: Int = 4) -> [Int16] { [Int16](repeating: value, count: count) }

    @Test func whatIsWrittenIsMixedOntoTheReadersFrameOnce() {
        let ring = FrameRing(capacity: 16, maximumBacklog: 8)
        Self.frame(100).withUnsafeBufferPointer { ring.write($0) }
        var frame = Self.frame(7)
        let mixed = frame.withUnsafeMutableBufferPointer { ring.mix(into: $0) }
        #expect(mixed == 4)
        #expect(frame == Self.frame(107))
        var again = Self.frame(7)
        #expect(again.withUnsafeMutableBufferPointer { ring.mix(into: $0) } == 0)
        #expect(again == Self.frame(7))
    }

    @Test func mixingSaturatesInsteadOfWrapping() {
        let ring = FrameRing(capacity: 16, maximumBacklog: 8)
        Self.frame(30_000).withUnsafeBufferPointer { ring.write($0) }
        var frame = Self.frame(30_000)
        frame.withUnsafeMutableBufferPointer { _ = ring.mix(into: $0) }
        #expect(frame == Self.frame(Int16.max))
    }

    @Test func aReaderThatFallsBehindSkipsToTheNewestBacklog() {
        let ring = FrameRing(capacity: 16, maximumBacklog: 4)
        for value: Int16 in [1, 2, 3] { Self.frame(value).withUnsafeBufferPointer { ring.write($0) } }
        var frame = Self.frame(0)
        frame.withUnsafeMutableBufferPointer { _ = ring.mix(into: $0) }
        #expect(frame == Self.frame(3), "the reader keeps at most maximumBacklog waiting: the newest frame")
    }

    @Test func aFullRingDropsWhatDoesNotFit() {
        let ring = FrameRing(capacity: 8, maximumBacklog: 8)
        for value: Int16 in [1, 2, 3] { Self.frame(value).withUnsafeBufferPointer { ring.write($0) } }
        #expect(ring.backlog == 8)
        var frame = Self.frame(0, count: 8)
        frame.withUnsafeMutableBufferPointer { _ = ring.mix(into: $0) }
        #expect(frame == Self.frame(1) + Self.frame(2))
    }

    /// One writer thread and one reader thread, as two shards' clocks: every sample the reader
    /// mixes is one the writer wrote, in order, and none is torn.
    @Test func oneWriterAndOneReaderOnTwoThreadsSeeTheSamplesInOrder() async {
        let ring = FrameRing(capacity: 960 * 8, maximumBacklog: 960 * 8)
        let frames = 2000
        let writer = Thread {
            var next: Int16 = 1
            var frame = [Int16](repeating: 0, count: 960)
            var sent = 0
            while sent < frames {
                guard ring.backlog <= 960 * 7 else { continue }
                for index in frame.indices { frame[index] = next; next = next == Int16.max ? 1 : next + 1 }
                frame.withUnsafeBufferPointer { ring.write($0) }
                sent += 1
            }
        }
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<(Int, Bool), Never>) in
            let reader = Thread {
                var expected: Int16 = 1
                var received = 0
                var inOrder = true
                var frame = [Int16](repeating: 0, count: 960)
                let deadline = Date().addingTimeInterval(20)
                while received < frames * 960, Date() < deadline {
                    for index in frame.indices { frame[index] = 0 }
                    let count = frame.withUnsafeMutableBufferPointer { ring.mix(into: $0) }
                    for sample in frame[0..<count] {
                        if sample != expected { inOrder = false }
                        expected = expected == Int16.max ? 1 : expected + 1
                    }
                    received += count
                }
                continuation.resume(returning: (received, inOrder))
            }
            reader.start()
            writer.start()
        }
        #expect(result.0 == frames * 960)
        #expect(result.1)
    }
}
