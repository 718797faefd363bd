import Foundation
import Glibc

/// A media clock: one thread that ticks every 20 ms and steps every registered session in turn
/// (no thread per call). `shared` serves sessions started without a clock; a media engine has
/// one per shard (docs/architecture.md). Sleeps to absolute deadlines on
/// CLOCK_MONOTONIC so ticks do not drift; when a tick overruns, the schedule restarts from now.
/// The lock is this clock's alone, taken once per tick and when a session joins or leaves.
package final class MediaClock: @unchecked Sendable {
    package static let shared = MediaClock()
    static let tickMilliseconds = 20

    private let name: String
    /// A manual clock has no thread: its owner calls `step` (a profiler stepping a fixed number
    /// of ticks, bench/callgrind-engine).
    private let manual: Bool
    private let lock = NSLock()
    private var sessions: [MediaSession] = []
    private var thread: Thread?
    private var threadID: pthread_t?
    private var running = false
    private var tickCount = 0
    private var overrunCount = 0
    private var sessionTickCount = 0
    private var lateSessionTickCount = 0
    private var frameLateSessionTickCount = 0

    /// `name` names the clock's thread (seen in `top -H`, `perf` and debuggers).
    package init(name: String = "parley-media-clock", manual: Bool = false) {
        self.name = name
        self.manual = manual
    }

    /// One tick of a manual clock: every session stepped once, on the caller's thread.
    package func step(now: ContinuousClock.Instant = .now) {
        let current = lock.withLock {
            tickCount += 1
            sessionTickCount += sessions.count
            return sessions
        }
        for session in current { session.tick(now: now) }
    }

    /// True on this clock's thread: where its sessions are stepped.
    package var isCurrentThread: Bool {
        lock.withLock { threadID.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// What the clock's thread got when it asked for a scheduling priority above normal, once
    /// it has started (docs/architecture.md).
    package var priority: ClockPriority? { lock.withLock { grantedPriority } }
    private var grantedPriority: ClockPriority?

    package var ticks: Int { lock.withLock { tickCount } }
    /// Ticks that started more than a whole tick late.
    package var overruns: Int { lock.withLock { overrunCount } }
    var sessionCount: Int { lock.withLock { sessions.count } }

    /// How far behind the clock runs: every session step of every tick, those that finished
    /// more than `lateThreshold` after their tick was due (the frame they sent left late), and
    /// those that finished more than a whole tick late (`frameLateThreshold`: the frame left
    /// when the next one was due, which a receiver's jitter buffer may no longer absorb).
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

    static let lateThreshold = Duration.milliseconds(10)
    static let frameLateThreshold = Duration.milliseconds(tickMilliseconds)

    package var lateness: Lateness {
        lock.withLock {
            Lateness(sessionTicks: sessionTickCount, lateSessionTicks: lateSessionTickCount, frameLateSessionTicks: frameLateSessionTickCount,
                     overruns: overrunCount)
        }
    }

    package func add(_ session: MediaSession) {
        lock.lock()
        defer { lock.unlock() }
        guard !sessions.contains(where: { $0 === session }) else { return }
        sessions.append(session)
        guard thread == nil, !manual else { return }
        running = true
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.qualityOfService = .userInteractive
        self.thread = thread
        thread.start()
    }

    package func remove(_ session: MediaSession) {
        lock.withLock { sessions.removeAll { $0 === session } }
    }

    /// Stops the thread (after its current tick). For clocks other than `shared`.
    package func stop() {
        lock.withLock { running = false }
    }

    static let maximumCatchUpTicks = 5

    private func run() {
        let granted = ClockPriority.raiseCurrentThread()
        lock.withLock {
            threadID = pthread_self()
            grantedPriority = granted
        }
        let interval = Int(Self.tickMilliseconds) * 1_000_000
        let lateNanoseconds = Int(Self.lateThreshold.components.attoseconds / 1_000_000_000)
        let frameLateNanoseconds = Int(Self.frameLateThreshold.components.attoseconds / 1_000_000_000)
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        var stepped = 0
        var late = 0
        var frameLate = 0
        while true {
            lock.lock()
            let current = sessions
            let keepRunning = running
            if keepRunning { tickCount += 1 }
            sessionTickCount += stepped
            lateSessionTickCount += late
            frameLateSessionTickCount += frameLate
            lock.unlock()
            guard keepRunning else {
                lock.withLock {
                    thread = nil
                    threadID = nil
                }
                return
            }
            let now = ContinuousClock.now
            // `deadline` is when this tick was due; a session stepped past it + 10 ms sent late.
            late = 0
            frameLate = 0
            for session in current {
                session.tick(now: now)
                var done = timespec()
                clock_gettime(CLOCK_MONOTONIC, &done)
                let behind = (done.tv_sec - deadline.tv_sec) * 1_000_000_000 + (done.tv_nsec - deadline.tv_nsec)
                if behind > lateNanoseconds { late += 1 }
                if behind > frameLateNanoseconds { frameLate += 1 }
            }
            stepped = current.count

            deadline.tv_nsec += interval
            if deadline.tv_nsec >= 1_000_000_000 {
                deadline.tv_sec += 1
                deadline.tv_nsec -= 1_000_000_000
            }
            var actual = timespec()
            clock_gettime(CLOCK_MONOTONIC, &actual)
            let lateness = (actual.tv_sec - deadline.tv_sec) * 1_000_000_000 + (actual.tv_nsec - deadline.tv_nsec)
            // A few late ticks are made up back to back, so sending and playout keep real time
            // under a brief stall; beyond that the clock gives up the lost time and counts it.
            if lateness > interval * Self.maximumCatchUpTicks {
                lock.withLock { overrunCount += 1 }
                deadline = actual
            }
            while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil) == EINTR {}
        }
    }
}
