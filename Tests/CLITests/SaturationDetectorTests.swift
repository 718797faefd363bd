@testable import CLI
import Foundation
import Media
import Testing

/// When `parley load` and `parley answer` call themselves saturated, on synthetic samples
/// (docs/performance.md, "When the load generator is the bottleneck"); the real thing is
/// scripts/test-load's saturation check.
@Suite struct SaturationDetectorTests {
    private static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// One second of 100 calls (5000 steps) on 2 cores, `late` steps a whole frame late.
    private static func second(_ index: Int, late: Int = 0, cpu: Double = 0.2, cores: Double = 2, dialLagMs: Int? = nil) -> SaturationDetector.Sample {
        SaturationDetector.Sample(at: start.addingTimeInterval(Double(index + 1)), seconds: 1, steps: 5000, frameLateSteps: late, cpuSeconds: cpu, cores: cores,
                                  dialLagMs: dialLagMs)
    }

    private static func feed(_ detector: inout SaturationDetector, _ samples: [SaturationDetector.Sample]) -> [SaturationDetector.Change] {
        samples.compactMap { detector.add($0) }
    }

    @Test func oneLateSecondOrTwoDoNotFlagARun() {
        var detector = SaturationDetector()
        // Every frame late in one second (a stall), then two late seconds apart: never 3 in a row.
        let samples = [Self.second(0, late: 5000)] + (1...5).map { Self.second($0) } + [Self.second(6, late: 400), Self.second(7, late: 400), Self.second(8)]
        #expect(Self.feed(&detector, samples).isEmpty)
        #expect(detector.first == nil)
        #expect(detector.breach(Self.second(0, late: 50)) == nil)  // 1 %: at the bound, not over it
    }

    @Test func threeLateSecondsInARowFlagFromTheFirstOfThem() throws {
        var detector = SaturationDetector()
        let changes = Self.feed(&detector, [Self.second(0), Self.second(1, late: 100), Self.second(2, late: 250), Self.second(3, late: 60)])
        let change = try #require(changes.first)
        guard case .saturated(let episode) = change else { Issue.record("expected a flag, got \(change)"); return }
        #expect(changes.count == 1)
        // The streak began when the second late second did: at 1 s from the start.
        #expect(episode.since == Self.start.addingTimeInterval(1))
        #expect(episode.breach.signal == .mediaClock)
        #expect(episode.breach.reason == "media clock: 1.2% of frames sent a whole 20 ms frame late, over 1% for 3 s")
        #expect(detector.first == episode)
    }

    @Test func itClearsOnlyAfterFiveSecondsWithinEveryBound() throws {
        var detector = SaturationDetector()
        var samples = (0..<3).map { Self.second($0, late: 500) }
        samples += (3..<7).map { Self.second($0) } + [Self.second(7, late: 500)] + (8..<13).map { Self.second($0) }
        let changes = Self.feed(&detector, samples)
        #expect(changes.count == 2)
        let cleared = try #require(changes.last)
        guard case .cleared(let at, _) = cleared else { Issue.record("expected a clearing, got \(cleared)"); return }
        // Four good seconds, a late one (which does not flag again), then five good: cleared at 13 s.
        #expect(at == Self.start.addingTimeInterval(13))
        #expect(detector.episodes == 1)
        #expect(detector.saturatedSeconds == 13)
    }

    @Test func aProcessAtItsCPUQuotaIsSaturatedWhateverTheMachineHas() throws {
        var detector = SaturationDetector()
        // 0.095 s of CPU a second under a 0.1-core quota: 95 % of what it may use.
        let changes = Self.feed(&detector, (0..<3).map { Self.second($0, cpu: 0.095, cores: 0.1) })
        guard case .saturated(let episode) = try #require(changes.first) else { Issue.record("not flagged"); return }
        #expect(episode.breach.signal == .cpu)
        #expect(episode.breach.reason == "CPU: 95% of the 0.1 cores it may use, at least 90% for 3 s")
        // The same CPU on two whole cores is nothing.
        #expect(detector.breach(Self.second(4, cpu: 0.095, cores: 2)) == nil)
    }

    @Test func callsBegunLateAgainstTheRateFlagTheGenerator() throws {
        var detector = SaturationDetector()
        #expect(detector.breach(Self.second(0, dialLagMs: 500)) == nil)
        let changes = Self.feed(&detector, (0..<3).map { Self.second($0, dialLagMs: 1200) })
        guard case .saturated(let episode) = try #require(changes.first) else { Issue.record("not flagged"); return }
        #expect(episode.breach.signal == .dialLag)
        #expect(episode.breach.reason == "dial rate: calls began up to 1200 ms after the rate asked for them, over 500 ms for 3 s")
    }

    @Test func tooFewStepsSayNothingAboutLateness() {
        let detector = SaturationDetector()
        let quiet = SaturationDetector.Sample(at: Self.start, seconds: 1, steps: 49, frameLateSteps: 49, cpuSeconds: 0, cores: 1)
        #expect(detector.breach(quiet) == nil)
    }

    @Test func theTightestCgroupQuotaCountsV1AndV2() {
        let files = [
            "/sys/fs/cgroup/cpu/load/cpu.cfs_quota_us": "10000\n", "/sys/fs/cgroup/cpu/load/cpu.cfs_period_us": "100000\n",
            "/sys/fs/cgroup/cpu/cpu.cfs_quota_us": "-1\n", "/sys/fs/cgroup/cpu/cpu.cfs_period_us": "100000\n",
            "/sys/fs/cgroup/a/b/cpu.max": "150000 100000\n", "/sys/fs/cgroup/a/cpu.max": "max 100000\n",
        ]
        let read: (String) -> String? = { files[$0] }
        #expect(ProcessCPU.quotaCores(cgroups: "1:cpu:/load\n2:memory:/x\n", read: read) == 0.1)
        #expect(ProcessCPU.quotaCores(cgroups: "0::/a/b\n", read: read) == 1.5)
        #expect(ProcessCPU.quotaCores(cgroups: "0::/a\n1:cpu:/\n", read: read) == nil)
    }
}

/// A saturated generator's run cannot pass a threshold on its figures; without one it stands on
/// its calls and says it saturated.
@Suite struct SaturatedLoadVerdictTests {
    @Test func aSaturatedRunWithAFigureThresholdFailsWithStatusNineNamingWhenAndWhy() throws {
        let since = Date(timeIntervalSince1970: 1_800_000_000)
        let episode = SaturationDetector.Episode(since: since, breach: SaturationDetector.Breach(signal: .cpu, value: 0.97, bound: 0.9, reason: "CPU: 97%"))
        let report = SaturationReport(episode, episodes: 1, seconds: 12, role: .generator)
        let healthy = LoadSummary(results: [], attempted: 0, seconds: 3, startingSeconds: nil, clock: (MediaClock.Lateness(), MediaClock.Lateness()),
                                  interrupted: false, thresholds: LoadThresholds())
        #expect(healthy.exitStatus == ExitStatus.normal)
        #expect(healthy.saturation == nil)
        let summary = LoadSummary(results: [], attempted: 0, seconds: 3, startingSeconds: nil, clock: (MediaClock.Lateness(), MediaClock.Lateness()),
                                  interrupted: false, thresholds: LoadThresholds(maxSetupMs: 1000), saturation: report)
        let time = SaturationReport.clockTime(since)
        #expect(summary.exitStatus == ExitStatus.generatorSaturated)
        #expect(summary.problems.first == "load generator saturated from \(time) (CPU: 97%): figures after that are not the system's")
        let last = try #require(summary.lines.last)
        #expect(last.hasPrefix("FAILED: load generator saturated from \(time), no threshold counts; failed calls 0 of 0 within --max-failures 0"))
        // No threshold on the figures: the run stands on its calls, and says it saturated.
        let counted = LoadSummary(results: [], attempted: 0, seconds: 3, startingSeconds: nil, clock: (MediaClock.Lateness(), MediaClock.Lateness()),
                                  interrupted: false, thresholds: LoadThresholds(), saturation: report)
        #expect(counted.exitStatus == ExitStatus.normal)
        #expect(counted.problems.isEmpty)
        #expect(try #require(counted.lines.last) == "PASSED: failed calls 0 of 0 within --max-failures 0; but load generator saturated from \(time) (CPU: 97%): figures after that are not the system's")
        let json = JSONEvents.line("summary", summary, at: since)
        #expect(json.contains(#""saturation":{"bound":0.9,"episodes":1,"reason":"CPU: 97%","seconds":12,"signal":"cpu","since":"2027-01-15T08:00:00.000Z","value":0.97}"#))
    }
}
