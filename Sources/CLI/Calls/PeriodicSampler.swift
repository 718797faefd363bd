import Locking

/// Something sampled every period until it says it is over.
protocol PeriodicallySampled: AnyObject, Sendable {
    /// Takes one sample; false when there is nothing more to sample (the call ended), which
    /// removes it from the sampler.
    func sampleOnce() async -> Bool
}

/// One task samples every registered member once a period, one member after another, in place
/// of a sleeping task per call. With hundreds of calls up, per-call tasks woke at scattered
/// moments and queued hundreds of jobs a second on the cooperative pool, each taking a pool
/// thread in turn with the setup of new calls; a pass keeps at most one of its jobs queued at a
/// time and yields every few members, so a setup step waits behind a few samples at most
/// (docs/performance.md, "Call setup").
/// The task runs while there are members and starts again with the next one added.
final class PeriodicSampler: Sendable {
    /// Every call's quality watch in the process.
    static let quality = PeriodicSampler(period: CallQualityWatch.tick)

    let period: Duration

    private struct Members {
        /// In the order they were added, so every pass visits them in the same order and each
        /// member is sampled once a period.
        var order: [ObjectIdentifier] = []
        var byID: [ObjectIdentifier: any PeriodicallySampled] = [:]
        var running = false
    }

    private let members = Lock(Members())

    init(period: Duration) {
        self.period = period
    }

    /// Samples `member` from the next pass on, until it says it is over or is removed.
    func add(_ member: some PeriodicallySampled) {
        let id = ObjectIdentifier(member)
        let start = members.withLock { members -> Bool in
            guard members.byID.updateValue(member, forKey: id) == nil else { return false }
            members.order.append(id)
            defer { members.running = true }
            return !members.running
        }
        // Unstructured: the sampler's loop, started from a synchronous `add`, runs until its last member leaves.
        if start { Task { await self.run() } }
    }

    /// No more samples of `member` after the one under way, if any.
    func remove(_ member: some PeriodicallySampled) {
        let id = ObjectIdentifier(member)
        members.withLock { members in
            guard members.byID.removeValue(forKey: id) != nil else { return }
            members.order.removeAll { $0 == id }
        }
    }

    var count: Int { members.withLock { $0.byID.count } }

    /// The task is sampling: it stops once no member is left.
    var isRunning: Bool { members.withLock { $0.running } }

    /// Members sampled between two yields of a pass.
    static let batch = 8

    /// One pass: each member present when the pass began and not removed since is sampled once.
    /// A hop to an idle actor does not leave the thread, so a pass could hold a pool thread for
    /// the whole of it; it yields after every `batch` members, and a job queued meanwhile (a
    /// step of a call's setup) runs before the pass goes on.
    func samplePass() async {
        let pass = members.withLock { members in members.order.compactMap { id in members.byID[id].map { (id, $0) } } }
        var over: [ObjectIdentifier] = []
        for (index, (id, member)) in pass.enumerated() {
            if index > 0, index % Self.batch == 0 { await Task.yield() }
            guard members.withLock({ $0.byID[id] != nil }) else { continue }
            let more = await member.sampleOnce()
            if !more { over.append(id) }
        }
        guard !over.isEmpty else { return }
        let ended = Set(over)
        members.withLock { members in
            for id in ended { members.byID[id] = nil }
            members.order.removeAll { ended.contains($0) }
        }
    }

    /// Passes a period apart, from the start of one to the next, while there are members; a pass
    /// that overran its period (a machine too busy) is followed by a rest, not at once by another.
    private func run() async {
        var next = ContinuousClock.now + period
        while true {
            try? await Task.sleep(until: next, clock: .continuous)
            await samplePass()
            next = max(next + period, ContinuousClock.now + period / 5)
            let done = members.withLock { members in
                if members.byID.isEmpty { members.running = false }
                return !members.running
            }
            if done { return }
        }
    }
}
