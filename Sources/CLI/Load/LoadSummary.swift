import Drivers
import Foundation
import Histogram
import Media
import Parley

/// Whole milliseconds recorded in an HdrHistogram: exact below 2048 ms (three significant
/// digits), within 0.1 % above.
struct LatencyHistogram: Sendable {
    private var histogram = Histogram<UInt64>(highestTrackableValue: 3_600_000, numberOfSignificantValueDigits: .three)

    mutating func record(_ milliseconds: Int) {
        histogram.record(UInt64(min(max(0, milliseconds), 3_600_000)))
    }

    var count: Int { Int(histogram.totalCount) }

    /// The nearest-rank percentile: the smallest recorded value at or above `percent` of them.
    func percentile(_ percent: Double) -> Int { Int(histogram.valueAtPercentile(percent)) }

    var payload: LatencyPayload? {
        guard count > 0 else { return nil }
        return LatencyPayload(count: count, p50: percentile(50), p95: percentile(95), p99: percentile(99), max: Int(histogram.max))
    }
}

struct LatencyPayload: Encodable {
    let count: Int
    let p50: Int
    let p95: Int
    let p99: Int
    let max: Int
}

/// The `summary` event of `parley load --json`, and the verdict behind its exit status.
struct LoadSummary: Encodable {
    let attempted: Int
    let answered: Int
    /// Answered and kept up for the whole hold; absent with `--bot`, where the bot ends each
    /// call and `verdicts` say how it went.
    let held: Int?
    /// Failed calls by reason.
    let failed: [String: Int]
    let setupMs: LatencyPayload?
    let firstAudioMs: LatencyPayload?
    /// From dialing to ICE connected and to DTLS finished: where a slow setup spent its time.
    let iceMs: LatencyPayload?
    let dtlsMs: LatencyPayload?
    /// Summed over the calls: RTP packets received and lost (RFC 3550 cumulative loss).
    let packetsReceived: Int
    let packetsLost: Int
    /// Interarrival jitter of the calls at their end: mean and worst.
    let jitterMs: JitterPayload?
    /// The E-model MOS of the calls that received audio, each over its whole length: mean and
    /// lowest; and the loss over the run, percent of the packets expected (lost over lost and
    /// received, summed over the calls).
    let mos: MOSPayload?
    let lossPercent: Double?
    /// Frames this process sent more than a whole frame (20 ms) after they were due, more than
    /// 10 ms after, and all frames it sent: from its media clock, over the run.
    let lateFrames: Int
    let lateFramesOver10Ms: Int
    let frames: Int
    /// Received audio that was concealed (lost or late) over all audio played, summed over calls.
    let concealedRatio: Double?
    let seconds: Double
    /// Calls attempted per second over the time calls were being started.
    let attemptRate: Double?
    let interrupted: Bool
    /// With `--bot`: calls by verdict, and failed calls by the step that failed.
    let verdicts: VerdictCounts?
    /// Why the run failed, empty when it passed (exit status 0).
    let problems: [String]
    /// Each threshold the run was judged by, with its figure.
    let thresholds: [LoadThresholdCheck]
    /// When the load generator itself became the bottleneck; absent when it kept up throughout.
    let saturation: SaturationReport?
    /// Saturated with a threshold on the figures (any but --max-failures, `judgesFigures`): exit 9.
    private var saturationFailsRun: Bool { saturation != nil && thresholds.contains { $0.flag != "--max-failures" } }

    struct JitterPayload: Encodable {
        let mean: Double
        let max: Double
    }

    struct MOSPayload: Encodable {
        let mean: Double
        let min: Double
    }

    init(results: [LoadCallResult], attempted: Int, seconds: Double, startingSeconds: Double?, clock: (start: MediaClock.Lateness, end: MediaClock.Lateness),
         interrupted: Bool, thresholds: LoadThresholds, bot: Bool = false, saturation: SaturationReport? = nil) {
        self.attempted = attempted
        answered = results.count(where: \.answered)
        held = bot ? nil : results.count(where: \.held)
        var failed: [String: Int] = [:]
        for result in results { if let failure = result.failure { failed[failure, default: 0] += 1 } }
        self.failed = failed
        var setup = LatencyHistogram()
        var firstAudio = LatencyHistogram()
        var ice = LatencyHistogram()
        var dtls = LatencyHistogram()
        for result in results {
            if let value = result.setupMs { setup.record(value) }
            if let value = result.firstAudioMs { firstAudio.record(value) }
            if let value = result.phases.iceMs { ice.record(value) }
            if let value = result.phases.dtlsMs { dtls.record(value) }
        }
        setupMs = setup.payload
        firstAudioMs = firstAudio.payload
        iceMs = ice.payload
        dtlsMs = dtls.payload
        let audio = results.compactMap(\.audio)
        packetsReceived = audio.reduce(0) { $0 + $1.packetsReceived }
        packetsLost = audio.reduce(0) { $0 + $1.packetsLost }
        let jitters = audio.filter { $0.packetsReceived > 0 }.map(\.jitterMs)
        jitterMs = jitters.isEmpty ? nil : JitterPayload(mean: jitters.reduce(0, +) / Double(jitters.count), max: jitters.max() ?? 0)
        let scores = results.compactMap(\.quality?.mos)
        mos = scores.isEmpty ? nil : MOSPayload(mean: CallPresenter.rounded(scores.reduce(0, +) / Double(scores.count)), min: CallPresenter.rounded(scores.min() ?? 0))
        lossPercent = packetsReceived > 0 ? CallPresenter.rounded(100 * Double(packetsLost) / Double(packetsLost + packetsReceived)) : nil
        let played = audio.reduce(0) { $0 + $1.totalSamplesPlayed }
        concealedRatio = played > 0 ? Double(audio.reduce(0) { $0 + $1.concealedSamples }) / Double(played) : nil
        lateFrames = clock.end.frameLateSessionTicks - clock.start.frameLateSessionTicks
        lateFramesOver10Ms = clock.end.lateSessionTicks - clock.start.lateSessionTicks
        frames = clock.end.sessionTicks - clock.start.sessionTicks
        self.seconds = seconds
        attemptRate = startingSeconds.flatMap { $0 > 0 && attempted > 1 ? Double(attempted - 1) / $0 : nil }
        self.interrupted = interrupted
        verdicts = VerdictCounts(results.compactMap(\.verdict))

        self.saturation = saturation
        var problems: [String] = []
        // First: a saturated generator's figures may be its own doing, so a threshold on them
        // cannot pass.
        if let saturation, thresholds.judgesFigures { problems.append(saturation.text) }
        if interrupted { problems.append("interrupted: \(results.count(where: { $0.failure == "interrupted" })) calls cut short") }
        let failures = failed.filter { $0.key != "interrupted" }.values.reduce(0, +)
        if failures > thresholds.maxFailures {
            let reasons = failed.sorted { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }.map { "\($0.key) \($0.value)" }
            problems.append("\(failures) of \(attempted) calls failed (\(reasons.joined(separator: ", "))), more than --max-failures \(thresholds.maxFailures)")
        }
        let checks = thresholds.checks(failures: failures, attempted: attempted, setupP95: setupMs?.p95, mosMean: mos?.mean, lossPercent: lossPercent,
                                       firstAudioP95: firstAudioMs?.p95)
        problems += checks.compactMap(\.problem)
        self.problems = problems
        self.thresholds = checks
    }

    /// The last line: PASSED or FAILED, with each threshold and its figure; a saturated
    /// generator first, since no threshold it met counts.
    var verdictLine: String {
        var line = problems.isEmpty ? "PASSED: " : "FAILED: "
        if let saturation, saturationFailsRun { line += "load generator saturated from \(SaturationReport.clockTime(saturation.since)), no threshold counts; " }
        line += thresholds.map(\.line).joined(separator: "; ")
        if let saturation, !saturationFailsRun { line += "; but \(saturation.text)" }
        return interrupted ? line + "; interrupted" : line
    }

    /// 0 passed, 9 the generator saturated and a threshold judged its figures (whatever else
    /// failed), 1 any other problem.
    var exitStatus: Int32 {
        if saturationFailsRun { return ExitStatus.generatorSaturated }
        return problems.isEmpty ? ExitStatus.normal : ExitStatus.callFailed
    }

    /// The summary for a person, on standard error.
    var lines: [String] {
        func latency(_ name: String, _ value: LatencyPayload?) -> String {
            guard let value else { return "\(name): none" }
            return "\(name): p50 \(value.p50) ms, p95 \(value.p95) ms, p99 \(value.p99) ms, max \(value.max) ms"
        }
        let kept = held.map { "\($0) held, " } ?? ""
        var lines = ["load: \(attempted) attempted, \(answered) answered, \(kept)\(failed.values.reduce(0, +)) failed in \(String(format: "%.1f", seconds)) s"
                     + (attemptRate.map { String(format: " (%.1f attempts/s)", $0) } ?? "")]
        for (reason, count) in failed.sorted(by: { $0.key < $1.key }) { lines.append("  failed \(reason): \(count)") }
        lines.append("  " + latency("setup", setupMs))
        lines.append("  " + latency("first audio", firstAudioMs))
        lines.append(String(format: "  received %d packets, lost %d, jitter mean %.1f ms max %.1f ms, concealed %.2f%%", packetsReceived, packetsLost,
                            jitterMs?.mean ?? 0, jitterMs?.max ?? 0, (concealedRatio ?? 0) * 100))
        if let mos { lines.append(String(format: "  MOS mean %.2f, lowest %.2f; loss %.2f%%", mos.mean, mos.min, lossPercent ?? 0)) }
        if let verdicts { lines += verdicts.lines.map { "  " + $0 } }
        lines.append(String(format: "  frames sent late: %d of %d over 20 ms, %d over 10 ms", lateFrames, frames, lateFramesOver10Ms))
        lines += problems.map { "FAILED: \($0)" }
        lines.append(verdictLine)
        return lines
    }
}

/// A `parley load --json` per-call `ended` event.
struct LoadEndedPayload: Encodable {
    let call: String?
    let index: Int
    let answered: Bool
    let held: Bool
    let failure: String?
    let setupMs: Int?
    let firstAudioMs: Int?
    let inviteMs: Int?
    let iceMs: Int?
    let dtlsMs: Int?
    let reason: TerminationReason?
    let audio: MediaStatistics?
    let verdict: String?
    let failedStep: String?
    /// Why the bot's verdict is failed or aborted: the per-call detail the terminal summarises.
    let verdictReason: String?
    let mos: Double?
    let lossPercent: Double?

    init(_ result: LoadCallResult) {
        call = result.callID
        index = result.index
        answered = result.answered
        held = result.held
        failure = result.failure
        setupMs = result.setupMs
        firstAudioMs = result.firstAudioMs
        inviteMs = result.phases.inviteMs
        iceMs = result.phases.iceMs
        dtlsMs = result.phases.dtlsMs
        reason = result.reason
        audio = result.audio
        verdict = result.verdict?.name
        failedStep = result.verdict?.failure?.step
        verdictReason = result.verdict?.failure?.reason
        mos = result.quality.map { CallPresenter.rounded($0.mos) }
        lossPercent = result.quality.map { CallPresenter.rounded($0.lossPercent) }
    }
}

/// How many calls of a `--bot` run passed, failed and were aborted, at which steps they failed,
/// and why: the terminal shows this once for the run, not a line per call.
struct VerdictCounts: Encodable {
    let passed: Int
    let failed: Int
    let aborted: Int
    let failedSteps: [String: Int]
    /// The most frequent reasons for failing, each with its step and how many calls gave it.
    let commonFailures: [CommonFailure]

    struct CommonFailure: Encodable {
        let step: String
        let reason: String
        let calls: Int
    }

    /// Reasons listed in the summary at most; the rest are counted.
    static let reasonsShown = 3

    init?(_ verdicts: [BotVerdict]) {
        guard !verdicts.isEmpty else { return nil }
        var failedSteps: [String: Int] = [:]
        var reasons: [String: [String: Int]] = [:]
        for case .failed(let step, let reason) in verdicts {
            failedSteps[step, default: 0] += 1
            reasons[step, default: [:]][reason, default: 0] += 1
        }
        passed = verdicts.count(where: { $0 == .passed })
        aborted = verdicts.count(where: { $0.name == "aborted" })
        failed = verdicts.count - passed - aborted
        self.failedSteps = failedSteps
        commonFailures = reasons.flatMap { step, counts in counts.map { CommonFailure(step: step, reason: $0.key, calls: $0.value) } }
            .sorted { ($0.calls, $1.step, $1.reason) > ($1.calls, $0.step, $0.reason) }
            .prefix(Self.reasonsShown).map { $0 }
    }

    var lines: [String] {
        let steps = failedSteps.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        var lines = ["bot verdicts: \(passed) passed, \(failed) failed, \(aborted) aborted" + (steps.isEmpty ? "" : " (failed at \(steps.joined(separator: ", ")))")]
        lines += commonFailures.map { "  \($0.calls) at \($0.step): \($0.reason)" }
        let others = failed - commonFailures.reduce(0) { $0 + $1.calls }
        if others > 0 { lines.append("  \(others) more with other reasons (each call's in --json)") }
        return lines
    }
}
