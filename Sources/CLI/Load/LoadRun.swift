import Foundation
import Locking
import Parley

/// The schedule of `parley load`: starts calls at most `rate` a second and at most
/// `concurrency` at once until `total` have been attempted or the run is stopped (Ctrl-C), and
/// collects what became of each. On stop, no call starts and every live call is hung up.
actor LoadRun {
    struct Plan: Sendable {
        let total: Int
        let concurrency: Int
        let rate: Double
    }

    private let plan: Plan
    private var inFlight = 0
    private var slotWaiter: CheckedContinuation<Void, Never>?
    private var live: [Int: Call] = [:]
    private(set) var isStopping = false
    /// Why the run was stopped, for the verdicts of the bots it cut short (`Interruption.reason`).
    private(set) var stopReason: String?
    private(set) var results: [LoadCallResult] = []
    private(set) var attempted = 0
    /// From the first call started to the last.
    private(set) var startingSeconds: Double?
    private let started = ContinuousClock.now
    /// Setup times of the calls answered so far, for the progress line.
    private(set) var setupSoFar = LatencyHistogram()
    /// When each call started and not yet dialing was due (by the rate asked, or when a slot
    /// freed), and the longest wait past that of the calls that began since the last look: the
    /// load generator's own lag (SaturationWatch).
    private var due: [Int: ContinuousClock.Instant] = [:]
    private var longestLag = Duration.zero

    init(plan: Plan) {
        self.plan = plan
    }

    /// Runs every call `start` makes and returns their results in the order they ended.
    func run(_ start: @escaping @Sendable (Int) async -> LoadCallResult) async -> [LoadCallResult] {
        let interval = Duration.nanoseconds(Int64(1e9 / plan.rate))
        var next = ContinuousClock.now
        // Discarding: a finished call's child task is freed at once, not kept until the run ends.
        await withDiscardingTaskGroup { group in
            for index in 1...plan.total {
                var dueAt = next
                while inFlight >= plan.concurrency, !isStopping {
                    await withCheckedContinuation { slotWaiter = $0 }
                    dueAt = max(dueAt, ContinuousClock.now)
                }
                // Short sleeps, so that a stop is not kept waiting by a slow rate.
                while !isStopping, ContinuousClock.now < next {
                    try? await Task.sleep(until: min(next, ContinuousClock.now + .milliseconds(100)), clock: .continuous)
                }
                guard !isStopping else { break }
                next = max(next, ContinuousClock.now - interval) + interval
                inFlight += 1
                attempted += 1
                startingSeconds = (ContinuousClock.now - started).inSeconds
                due[index] = dueAt
                group.addTask {
                    // Read before the hop to this actor: the lag is the pool's, not the queue's here.
                    await self.began(index, at: ContinuousClock.now)
                    let result = await start(index)
                    await self.ended(result)
                }
            }
        }
        return results
    }

    var counts: (up: Int, done: Int, failed: Int, attempted: Int, seconds: Double) {
        (live.count, results.count, results.count(where: { $0.failure != nil }), attempted, (ContinuousClock.now - started).inSeconds)
    }

    private func began(_ index: Int, at instant: ContinuousClock.Instant) {
        guard let dueAt = due.removeValue(forKey: index) else { return }
        longestLag = max(longestLag, instant - dueAt)
    }

    /// The longest a call waited past when it was due before it began, in ms, over the calls
    /// that began since the last look and those due and not begun yet; then starts over.
    func takeDialLag() -> Int {
        let now = ContinuousClock.now
        let waiting = due.values.map { now - $0 }.max() ?? .zero
        let lag = max(longestLag, waiting)
        longestLag = .zero
        return LoadCall.milliseconds(lag)
    }

    var liveCalls: [Call] { Array(live.values) }

    var total: Int { plan.total }

    /// Calls started a second: over the run so far while calls are still being started, then
    /// over the time they were started (first to last), as the summary gives it. Not over the
    /// last second: with every call up and none left to start that reads 0.
    var attemptRate: Double {
        if attempted < plan.total, !isStopping {
            let seconds = (ContinuousClock.now - started).inSeconds
            return seconds > 0 ? Double(attempted) / seconds : 0
        }
        guard let startingSeconds, startingSeconds > 0, attempted > 1 else { return 0 }
        return Double(attempted - 1) / startingSeconds
    }

    func track(_ index: Int, _ call: Call) async {
        live[index] = call
        if isStopping { await call.hangup() }
    }

    /// A call was answered this long after it was dialed.
    func answered(setupMs: Int) {
        setupSoFar.record(setupMs)
    }

    func untrack(_ index: Int) {
        live[index] = nil
    }

    /// Ctrl-C, SIGTERM or SIGHUP (`signal`): start nothing more and hang up every live call.
    func stop(signal: Int32 = SIGINT) {
        guard !isStopping else { return }
        isStopping = true
        stopReason = Interruption.reason(signal)
        slotWaiter?.resume()
        slotWaiter = nil
        // Unstructured: hangs each live call up at once, from a synchronous stop; the calls' own tasks await the end.
        for call in live.values { Task { await call.hangup() } }
    }

    private func ended(_ result: LoadCallResult) {
        results.append(result)
        inFlight -= 1
        slotWaiter?.resume()
        slotWaiter = nil
    }
}
