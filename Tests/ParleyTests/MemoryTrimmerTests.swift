import Foundation
import Parley
import Locking
import Testing
import TestSupport

@Suite(.tags(.slow), .notInQuickCheck) struct MemoryTrimmerTests {
    @Test func trimsEveryPeriodUntilStopped() async throws {
        let trims = Counter()
        let trimmer = MemoryTrimmer(trim: { trims.add() })
        trimmer.start(period: .milliseconds(20))
        trimmer.start(period: .milliseconds(20))
        try await waitUntil("three trims", within: 10) { trims.value >= 3 }
        trimmer.stop()
        let figures = trimmer.figures
        #expect(figures.trims >= 3)
        #expect(figures.trims == trims.value)
    }

    /// Freed small blocks below a live one stay resident until a trim gives their pages back.
    @Test func trimGivesFreedHeapPagesBackToTheSystem() throws {
        let blockSize = 1024
        let count = 64 * 1024  // 64 MiB of blocks malloc keeps in its heap (below its mmap threshold)
        var blocks: [UnsafeMutableRawPointer] = []
        blocks.reserveCapacity(count)
        for _ in 0..<count {
            let block = try #require(malloc(blockSize))
            memset(block, 1, blockSize)
            blocks.append(block)
        }
        // Keeps the top of the heap in use, so freeing the rest cannot shrink it from the top.
        let pin = try #require(malloc(blockSize))
        defer { free(pin) }
        for block in blocks { free(block) }
        blocks.removeAll()
        let before = try #require(Self.anonymousKiB())
        MemoryTrimmer().trimNow()
        let after = try #require(Self.anonymousKiB())
        #expect(before - after > 32 * 1024, "anonymous RSS \(before) KiB before the trim, \(after) KiB after")
    }

    private static func anonymousKiB() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix("RssAnon:") }
        return line.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") }
    }
}

private final class Counter: Sendable {
    private let count = Lock(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
