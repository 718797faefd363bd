import Foundation
import Parley
import Locking

/// One call's quality on the command line: samples its statistics every half second into a
/// `CallQualityMonitor`, reports warnings as they change, and builds the call record at the end.
/// The monitor sees snapshots only, never packets. The samples are taken by the process's one
/// `PeriodicSampler`, with every other call's, not by a task of the call's own.
final class CallQualityWatch: PeriodicallySampled {
    static let tick: Duration = .milliseconds(500)

    let call: Call
    private let presenter: CallPresenter
    private let sampler: PeriodicSampler
    /// Set by `start`: how often a `stats` event goes out, when the last did, and what else
    /// sees every sample.
    private struct Sampling {
        let statsInterval: Duration
        var lastStats: ContinuousClock.Instant
        let each: @Sendable (CallState, CallStatistics) async -> Void
    }

    private let sampling = Lock<Sampling?>(nil)
    private let origin = ContinuousClock.now
    private struct State {
        var monitor = CallQualityMonitor()
        var latest: CallQualityMonitor.Update?
        var recoveries = 0
        var answered = false
        var traffic = CallMetrics.Traffic()
    }

    private let state = Lock(State())
    private let watchesInputLevel: Bool

    /// `watchesInputLevel`: false for a tone or silence, steady by design: only a source that
    /// should carry speech (a device, a file, a pipe) is a dead microphone when it holds still.
    init(call: Call, presenter: CallPresenter, watchesInputLevel: Bool, sampler: PeriodicSampler = .quality) {
        self.call = call
        self.presenter = presenter
        self.sampler = sampler
        self.watchesInputLevel = watchesInputLevel
        CallMetrics.callStarted(call.direction)
    }

    /// The call's events pass here first: a recovery counts towards the record, the first
    /// `active` gives the setup time (from this watch's start, the dial or the offer).
    func note(_ event: CallEvent) {
        switch event {
        case .recovered(let path):
            state.withLock { $0.recoveries += 1 }
            CallMetrics.recovered(path)
        case .state(.active):
            let first = state.withLock { state in
                defer { state.answered = true }
                return !state.answered
            }
            if first { CallMetrics.setup(call.direction, ContinuousClock.now - origin) }
        default:
            break
        }
    }

    /// The MOS and word of the last sample, for `stats` and the status line.
    var quality: CallQualityMonitor.Update? { state.withLock { $0.latest } }

    /// Samples every `tick` until the call ends or `stop()`; `each` sees every sample (the status
    /// line), and a `stats` event goes out every `statsInterval` (zero: none).
    func start(statsInterval: Duration, each: @escaping @Sendable (CallState, CallStatistics) async -> Void = { _, _ in }) {
        sampling.withLock { $0 = Sampling(statsInterval: statsInterval, lastStats: .now, each: each) }
        sampler.add(self)
    }

    /// No samples after the one under way, if any.
    func stop() {
        sampler.remove(self)
        // `each` may hold this watch: let it go with the sampling.
        sampling.withLock { $0 = nil }
    }

    /// One sample, taken by the sampler: false once the call is over.
    func sampleOnce() async -> Bool {
        guard let each = sampling.withLock({ $0?.each }) else { return false }
        let state = await call.state
        guard !state.isDone else { return false }
        let statistics = await call.statistics()
        await sample(statistics, state: state)
        await each(state, statistics)
        let statsDue = sampling.withLock { sampling in
            guard let interval = sampling?.statsInterval, interval > .zero, let last = sampling?.lastStats else { return false }
            let now = ContinuousClock.now
            guard now - last >= interval else { return false }
            sampling?.lastStats = now
            return true
        }
        if statsDue { presenter.stats(call.id, statistics, quality: quality) }
        return true
    }

    /// The last sample, the final `stats`, and the `ended` event with the call record.
    func finish(_ reason: TerminationReason, feedback: CallFeedback? = nil) async -> CallRecord {
        let statistics = await call.statistics()
        // Counters only: the warnings of a call that is over are neither raised nor cleared.
        await sample(statistics, state: .done(reason), reporting: false)
        presenter.stats(call.id, statistics, quality: quality)
        let summary = state.withLock { $0.monitor.summary }
        var record = CallRecord(timeline: await call.timeline, summary: summary, recoveries: state.withLock { $0.recoveries }, termination: reason,
                                direction: call.direction)
        record.feedback = feedback
        if record.missed == true { presenter.missed(call.id, from: call.remoteParty, record: record) }
        presenter.ended(call.id, reason, statistics: statistics, record: record)
        CallMetrics.callEnded(call.direction, reason: reason, mos: record.mosMean, lossPercent: record.lossPercent, jitterMs: record.jitterMeanMs)
        return record
    }

    private func sample(_ statistics: CallStatistics, state: CallState, reporting: Bool = true) async {
        guard let audio = statistics.audio else { return }
        // Muted matters only to a source watched for a steady level: one actor hop less a sample.
        var sendsSource = false
        if watchesInputLevel && state == .active { sendsSource = await !call.isMuted }
        let activity = CallQualityMonitor.Activity(expectsAudio: state == .active, sendsSource: sendsSource)
        let update = self.state.withLock { state in
            let update = state.monitor.update(audio, at: ContinuousClock.now - origin, activity: activity)
            state.latest = update
            state.traffic.add(audio)
            return update
        }
        guard reporting else { return }
        for change in update.changes { presenter.warning(call.id, change) }
    }
}

extension AudioSourceSpec {
    /// A tone or silence made here, not audio from outside.
    var isGenerated: Bool {
        if case .tone = self { return true }
        if case .silence = self { return true }
        return false
    }
}
