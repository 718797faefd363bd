import CMalloc
import Foundation
import ICE
import Parley

/// `parley answer --clock-interval S`: a `clock` event every S seconds while calls run, with the
/// media clocks' cumulative lateness (all shards), so a load test can tell when the process falls
/// behind.
struct ClockPayload: Encodable {
    /// Calls answered and not yet ended.
    let calls: Int
    /// Session steps so far (one per call per 20 ms tick), those whose frame left more than
    /// 10 ms after their tick was due, and those whose frame left more than a whole 20 ms frame
    /// late.
    let sessionTicks: Int
    let lateSessionTicks: Int
    let frameLateSessionTicks: Int
    /// Times the clock fell more than five ticks behind and gave up the lost time.
    let overruns: Int
    /// The engine's shards, the calls on each (those made so far), and the scheduling each
    /// shard's clock got (docs/architecture.md).
    let shards: Int
    let shardCalls: [Int]
    let clockPriority: [String]
    /// Per shard: the highest Opus complexity its clock lets calls encode with now (10 when it
    /// has room; lower while its ticks run short of time), and the smoothed share of each 20 ms
    /// tick its calls take (docs/media.md, "Opus complexity under load").
    let opusComplexityCeiling: [Int]
    let clockBusyShare: [Double]
    /// Resident memory and CPU time of the whole process so far (Linux /proc/self).
    let rssKiB: Int?
    /// The anonymous part of `rssKiB` (heap, stacks); the rest is pages of the program and its
    /// libraries, which become resident as code first runs and are no one's leak.
    let rssAnonKiB: Int?
    let cpuSeconds: Double?
    /// Descriptors the process holds and its soft limit (raised to the hard one at start):
    /// a call past it fails as `out-of-file-descriptors` (docs/cli.md, "File descriptors").
    let openFiles: Int?
    let openFileLimit: Int?
    /// What malloc has handed out and not had back (live heap, every arena and mmapped block),
    /// and what it holds from the system for that: resident memory can grow while the live heap
    /// stays flat, when freed memory stays in malloc's arenas (docs/performance.md, "Soak").
    let heapKiB: Int
    let mallocKiB: Int
    /// `malloc_trim` calls by the process's `MemoryTrimmer` so far, and the longest one in
    /// milliseconds (it holds malloc's arena locks while it runs).
    let mallocTrims: Int
    let longestTrimMs: Double

    init(calls: Int, engine: MediaEngine) {
        self.calls = calls
        let lateness = engine.lateness
        let made = engine.shards
        shards = engine.shardCount
        shardCalls = made.map(\.calls)
        clockPriority = made.map { $0.clock.priority?.description ?? "not started" }
        opusComplexityCeiling = made.map(\.clock.encoderComplexityCeiling)
        clockBusyShare = made.map { ($0.clock.busyShare * 1000).rounded() / 1000 }
        sessionTicks = lateness.sessionTicks
        lateSessionTicks = lateness.lateSessionTicks
        frameLateSessionTicks = lateness.frameLateSessionTicks
        overruns = lateness.overruns
        let status = Self.status()
        rssKiB = status["VmRSS"]
        rssAnonKiB = status["RssAnon"]
        cpuSeconds = ProcessCPU.seconds()
        openFiles = FileDescriptorLimit.openCount()
        openFileLimit = FileDescriptorLimit.softLimit
        let heap = mallinfo2()
        heapKiB = (heap.uordblks + heap.hblkhd) / 1024
        mallocKiB = (heap.arena + heap.hblkhd) / 1024
        let trimming = MemoryTrimmer.process.figures
        mallocTrims = trimming.trims
        let longest = trimming.longest.components
        longestTrimMs = Double(longest.seconds) * 1000 + Double(longest.attoseconds) / 1e15
    }

    /// The kB figures of /proc/self/status, by name (VmRSS, RssAnon, ...).
    private static func status() -> [String: Int] {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return [:] }
        var figures: [String: Int] = [:]
        for line in status.split(separator: "\n") where line.hasSuffix(" kB") {
            let fields = line.split(whereSeparator: { $0 == ":" || $0 == " " || $0 == "\t" })
            if fields.count == 3, let value = Int(fields[1]) { figures[String(fields[0])] = value }
        }
        return figures
    }
}
