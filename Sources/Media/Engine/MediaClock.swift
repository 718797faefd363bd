import Foundation
import Glibc
import Locking

/// A media clock: one thread that ticks every 20 ms and steps every registered session in turn
/// (no thread per call). `shared` serves sessions started without a clock; a media engine has
/// one per shard (docs/architecture.md). Sleeps to absolute deadlines on
/// CLOCK_MONOTONIC so ticks do not drift; when a tick overruns, the schedule restarts from now.
/// The lock is this clock's alone, taken once per tick and when a session joins or leaves.
package final class MediaClock: Sendable {
    package static let shared = MediaClock()
    static let tickMilliseconds = 20

    private let name: String
    /// Where in the 20 ms tick this clock's ticks fall, as a fraction of it, on a grid the
    /// process picked at random when it started (`processPhaseNanoseconds`). A process's shards
    /// spread their clocks over the tick (shard k of K at k/K): each clock steps its sessions in
    /// one burst, and two bursts at once would hold every core of a small machine, so the network
    /// threads and the process's other work would wait for both. The random grid does the same
    /// between processes on one machine (a load generator and the callee of `make bench`), whose
    /// first clocks would otherwise start with the same call and tick together.
    private let phase: Double
    /// A manual clock has no thread: its owner calls `step` (a profiler stepping a fixed number
    /// of ticks, bench/callgrind-engine).
    private let manual: Bool
    private struct State {
        var sessions: [MediaSession] = []
        var thread: Thread?
        var threadID: pthread_t?
        var grantedPriority: ClockPriority?
        var running = false
        var tickCount = 0
        var overrunCount = 0
        var sessionTickCount = 0
        var lateSessionTickCount = 0
        var frameLateSessionTickCount = 0
        var complexityCeiling = EncoderLoadGovernor.highest
        var busyShare = 0.0
    }

    private let state = Lock(State())

    /// `name` names the clock's thread (seen in `top -H`, `perf` and debuggers).
    package init(name: String = "parley-clock", manual: Bool = false, phase: Double = 0) {
        self.name = name
        self.manual = manual
        self.phase = min(max(phase, 0), 1)
    }

    package static let processPhaseNanoseconds = Int.random(in: 0..<(tickMilliseconds * 1_000_000))

    /// The first tick's deadline: the next instant after `now` at this clock's place in the tick.
    package static func firstDeadline(after now: timespec, phase: Double) -> timespec {
        let interval = tickMilliseconds * 1_000_000
        let offset = (processPhaseNanoseconds + Int(phase * Double(interval))) % interval
        let nowNanoseconds = now.tv_sec * 1_000_000_000 + now.tv_nsec
        let ticks = (nowNanoseconds - offset) / interval + 1
        let first = ticks * interval + offset
        return timespec(tv_sec: first / 1_000_000_000, tv_nsec: first % 1_000_000_000)
    }

    /// One tick of a manual clock: every session stepped once, on the caller's thread.
    package func step(now: ContinuousClock.Instant = .now) {
        let current = state.withLock { state in
            state.tickCount += 1
            state.sessionTickCount += state.sessions.count
            return state.sessions
        }
        for session in current { session.send(now: now) }
        for session in current { session.playOut(now: now) }
    }

    /// True on this clock's thread: where its sessions are stepped.
    package var isCurrentThread: Bool {
        state.withLock { $0.threadID.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// What the clock's thread got when it asked for a scheduling priority above normal, once
    /// it has started (docs/architecture.md).
    package var priority: ClockPriority? { state.withLock { $0.grantedPriority } }

    package var ticks: Int { state.withLock { $0.tickCount } }
    /// Ticks that started more than a whole tick late.
    package var overruns: Int { state.withLock { $0.overrunCount } }
    var sessionCount: Int { state.withLock { $0.sessions.count } }

    /// How far behind the clock runs: every session step of every tick, those whose send
    /// (`MediaSession.send`, the first half of a step) finished more than `lateThreshold` after
    /// their tick was due (the frame left late), and those that finished more than a whole tick
    /// late (`frameLateThreshold`: the frame left when the next one was due, which a receiver's
    /// jitter buffer may no longer absorb).
    package struct Lateness: Sendable, Equatable {
        package var sessionTicks: Int
        package var lateSessionTicks: Int
        package var frameLateSessionTicks: Int
        package var overruns: Int

        package init(sessionTicks: Int = 0, lateSessionTicks: Int = 0, frameLateSessionTicks: Int = 0, overruns: Int = 0) {
            self.sessionTicks = sessionTicks
            self.lateSessionTicks = lateSessionTicks
            self.frameLateSessionTicks = frameLateSessionTicks
            self.overruns = overruns
        }
    }

    /// The highest Opus complexity this clock's sessions may use now, and the smoothed share of
    /// each tick its sessions take (`EncoderLoadGovernor`).
    package var encoderComplexityCeiling: Int { state.withLock { $0.complexityCeiling } }
    package var busyShare: Double { state.withLock { $0.busyShare } }

    static let lateThreshold = Duration.milliseconds(10)
    static let frameLateThreshold = Duration.milliseconds(tickMilliseconds)

    package var lateness: Lateness {
        state.withLock { state in
            Lateness(sessionTicks: state.sessionTickCount, lateSessionTicks: state.lateSessionTickCount, frameLateSessionTicks: state.frameLateSessionTickCount,
                     overruns: state.overrunCount)
        }
    }

    package func add(_ session: MediaSession) {
        state.withLock { state in
            guard !state.sessions.contains(where: { $0 === session }) else { return }
            state.sessions.append(session)
            guard state.thread == nil, !manual else { return }
            state.running = true
            let thread = Thread { [self] in
                ThreadName.adopt(name)
                run()
            }
            thread.qualityOfService = .userInteractive
            state.thread = thread
            thread.start()
        }
    }

    package func remove(_ session: MediaSession) {
        state.withLock { $0.sessions.removeAll { $0 === session } }
    }

    /// Stops the thread (after its current tick). For clocks other than `shared`.
    package func stop() {
        state.withLock { $0.running = false }
    }

    static let maximumCatchUpTicks = 5

    private func run() {
        let granted = ClockPriority.raiseCurrentThread()
        state.withLock { state in
            state.threadID = pthread_self()
            state.grantedPriority = granted
        }
        let interval = Int(Self.tickMilliseconds) * 1_000_000
        // Whole durations (seconds included), not only their fractions of a second.
        let lateNanoseconds = Int(Self.lateThreshold / .nanoseconds(1))
        let frameLateNanoseconds = Int(Self.frameLateThreshold / .nanoseconds(1))
        var start = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        var deadline = Self.firstDeadline(after: start, phase: phase)
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil) == EINTR {}
        var stepped = 0
        var late = 0
        var frameLate = 0
        var governor = EncoderLoadGovernor()
        while true {
            let (current, keepRunning) = state.withLock { state in
                if state.running { state.tickCount += 1 }
                state.sessionTickCount += stepped
                state.lateSessionTickCount += late
                state.frameLateSessionTickCount += frameLate
                state.complexityCeiling = governor.ceiling
                state.busyShare = governor.busy
                return (state.sessions, state.running)
            }
            guard keepRunning else {
                if case .realtime = granted { SignallingPriority.mediaThreadEnded() }
                state.withLock { state in
                    state.thread = nil
                    state.threadID = nil
                }
                return
            }
            let now = ContinuousClock.now
            var started = timespec()
            clock_gettime(CLOCK_MONOTONIC, &started)
            // `deadline` is when this tick was due; a frame sent past it + 10 ms left late.
            // Every session sends before any plays out (`MediaSession.send`).
            late = 0
            frameLate = 0
            var done = started
            let ceiling = governor.ceiling
            for session in current {
                session.send(now: now, encoderComplexityCeiling: ceiling)
                clock_gettime(CLOCK_MONOTONIC, &done)
                let behind = (done.tv_sec - deadline.tv_sec) * 1_000_000_000 + (done.tv_nsec - deadline.tv_nsec)
                if behind > lateNanoseconds { late += 1 }
                if behind > frameLateNanoseconds { frameLate += 1 }
            }
            for session in current { session.playOut(now: now) }
            clock_gettime(CLOCK_MONOTONIC, &done)
            stepped = current.count
            let work = (done.tv_sec - started.tv_sec) * 1_000_000_000 + (done.tv_nsec - started.tv_nsec)
            governor.record(workNanoseconds: work, tickNanoseconds: interval, late: late > 0)

            deadline.tv_nsec += interval
            if deadline.tv_nsec >= 1_000_000_000 {
                deadline.tv_sec += 1
                deadline.tv_nsec -= 1_000_000_000
            }
            var actual = timespec()
            clock_gettime(CLOCK_MONOTONIC, &actual)
            let lateness = (actual.tv_sec - deadline.tv_sec) * 1_000_000_000 + (actual.tv_nsec - deadline.tv_nsec)
            // A few late ticks are made up back to back, so sending and playout keep real time
            // under a brief stall; beyond that the clock gives up the lost time and counts it:
            // an overrun, and for every session a frame-late step per tick given up, since a
            // frame never sent is later than any sent (a clock starved by a CPU quota gives up
            // most of its ticks, and its lateness must say so).
            if lateness > interval * Self.maximumCatchUpTicks {
                state.withLock { $0.overrunCount += 1 }
                let givenUp = (lateness / interval) * current.count
                stepped += givenUp
                late += givenUp
                frameLate += givenUp
                deadline = actual
            }
            // Behind schedule the sleep returns at once; without a yield a clock catching up holds
            // its core for every tick it owes, and the clocks of the same priority waiting for that
            // core (another shard's, the far end's in the same machine) fall behind in turn.
            if lateness > 0 { sched_yield() }
            while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil) == EINTR {}
        }
    }
}
