import Foundation
import Glibc
import Locking
import Synchronization

/// The scheduling of a process's threads that carry no media: its signalling (the WebSocket
/// thread, and the Swift concurrency pool where the client's, the calls' and the switch's actors
/// run), bots, statistics and output. Media threads run real-time (`ClockPriority`: clocks
/// `SCHED_FIFO` 10, network threads 5), and a real-time thread runs whenever it is ready.
///
/// Where the process may use real-time scheduling, `keep()` moves every thread that is not a
/// media thread to `SCHED_RR` 5: level with the network threads, behind the clocks, whose ticks
/// set every call's timing, and ahead of every normal thread. Below the network threads (the
/// 1 it had until issue 35), a call's setup, some thirty steps on these threads in three
/// processes, waited for every packet of every call up: once the media threads filled the two
/// cores, setups at 20 a second with 200 calls up took seconds, while the work they waited for
/// is a few milliseconds a call. Level, neither preempts the other: a setup step waits at most
/// for a network thread's current pass (one a millisecond, `CoalescingPoll`), a packet for one
/// small signalling step. Above them (7 was measured), signalling held up ICE checks and packet
/// reading instead (docs/performance.md, "Setup under load"). What is not small runs as bulk
/// work (`runAsBulkWork`: speech recognition, speech synthesis, a prompt's encoding) at
/// `SCHED_RR` 1, behind all media, as all of this did before.
///
/// The Swift pool makes and ends its threads on its own, and a new thread inherits the
/// scheduling of the thread that made it (a media thread's, as likely as not), so a keeper thread
/// looks at every thread of the process once a second (`periodSeconds`): it raises the normal
/// ones and brings down those that inherited a media priority. `PARLEY_CLOCK_PRIORITY=normal`
/// leaves every thread alone, as it does the clocks.
package enum SignallingPriority {
    /// `SCHED_RR` priority 5: level with `ClockPriority.networkRealtimePriority`, below the
    /// clocks' `ClockPriority.realtimePriority` (10).
    package static let realtimePriority: Int32 = 5
    /// Bulk work's `SCHED_RR` priority: below every media thread.
    package static let bulkPriority: Int32 = 1
    static let periodSeconds: UInt32 = 1

    private static let started = Atomic<Bool>(false)
    /// The threads `ClockPriority` made real-time, by kernel thread id.
    private static let mediaThreads = Lock<Set<pid_t>>([])
    /// The threads inside `runAsBulkWork` now, which the keeper leaves at `bulkPriority`.
    private static let bulkThreads = Lock<Set<pid_t>>([])

    /// Starts the keeper once per process. Returns false, and keeps nothing, where real-time
    /// scheduling is not allowed or is turned off.
    @discardableResult
    package static func keep() -> Bool {
        if let setting = getenv(ClockPriority.environmentVariable), String(cString: setting) == "normal" { return false }
        guard started.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return true }
        guard adjustThreads() else { return false }
        let keeper = Thread {
            ThreadName.adopt("parley-priority")
            while true {
                sleep(periodSeconds)
                adjustThreads()
            }
        }
        keeper.start()
        return true
    }

    /// Called on a thread `ClockPriority` just made real-time, and again as it ends.
    static func mediaThreadStarted() {
        guard let thread = currentThreadID() else { return }
        _ = mediaThreads.withLock { $0.insert(thread) }
    }

    static func mediaThreadEnded() {
        guard let thread = currentThreadID() else { return }
        _ = mediaThreads.withLock { $0.remove(thread) }
    }

    /// Runs `work` on the calling thread behind every media thread (`bulkPriority`) when the
    /// thread runs at the signalling priority, and gives it back that priority after. For CPU-heavy
    /// jobs (milliseconds and more) on pool or dispatch threads, which the keeper otherwise keeps
    /// level with packet reading. Two system calls each way: not for small work. A keeper pass
    /// that read the set just before the thread joined it may raise the thread back for the rest
    /// of that job.
    package static func runAsBulkWork<T, E: Error>(_ work: () throws(E) -> T) throws(E) -> T {
        var current = sched_param()
        guard sched_getscheduler(0) == SCHED_RR, sched_getparam(0, &current) == 0, current.sched_priority == realtimePriority,
              let thread = currentThreadID() else { return try work() }
        _ = bulkThreads.withLock { $0.insert(thread) }
        var bulk = sched_param(sched_priority: bulkPriority)
        _ = sched_setscheduler(0, SCHED_RR, &bulk)
        defer {
            _ = sched_setscheduler(0, SCHED_RR, &current)
            _ = bulkThreads.withLock { $0.remove(thread) }
        }
        return try work()
    }

    /// The calling thread's kernel id (gettid(2), which Swift does not import): /proc/thread-self
    /// links to PID/task/TID.
    private static func currentThreadID() -> pid_t? {
        var link = [CChar](repeating: 0, count: 64)
        let count = readlink("/proc/thread-self", &link, link.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: link.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self).split(separator: "/").last.flatMap { pid_t($0) }
    }

    /// Whether a thread that is not a media thread, scheduled so, is moved to `SCHED_RR` 5: a
    /// normal one, and one that inherited a media thread's real-time priority (no one else here
    /// asks for more); not one already there, nor one at another policy (batch, idle).
    package static func moves(policy: Int32, priority: Int32) -> Bool {
        switch policy {
        case SCHED_OTHER: true
        case SCHED_FIFO: true
        case SCHED_RR: priority != realtimePriority
        default: false
        }
    }

    /// One pass over the process's threads; false when the kernel refused the first change.
    @discardableResult
    static func adjustThreads() -> Bool {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return false }
        let media = mediaThreads.withLock { $0 }
        let bulk = bulkThreads.withLock { $0 }
        for entry in entries {
            guard let thread = pid_t(entry), !media.contains(thread), !bulk.contains(thread) else { continue }
            var current = sched_param()
            let policy = sched_getscheduler(thread)
            guard policy >= 0, sched_getparam(thread, &current) == 0, moves(policy: policy, priority: current.sched_priority) else { continue }
            var wanted = sched_param(sched_priority: realtimePriority)
            if sched_setscheduler(thread, SCHED_RR, &wanted) != 0, errno == EPERM { return false }
        }
        return true
    }
}
