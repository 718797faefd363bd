import Foundation
import Glibc
import Locking
import Synchronization

/// The scheduling of a process's threads that carry no media: its signalling (the WebSocket
/// thread, and the Swift concurrency pool where the client's, the calls' and the switch's actors
/// run), bots, statistics and output. Media threads run real-time (`ClockPriority`: clocks
/// `SCHED_FIFO` 10, network threads 5), and a real-time thread runs whenever it is ready, so
/// a normal thread waits until neither core has media to do. With 200 Opus calls the media
/// threads of the callee and the caller took 1.5 of the 2 cores, their normal threads and the
/// switch's waited 6 to 16 times as long as they ran, and a call's setup, some thirty steps on
/// normal threads of three processes, took seconds (docs/performance.md, "Call setup").
///
/// Where the process may use real-time scheduling, `keep()` moves every thread that is not a
/// media thread to `SCHED_RR` 1: ahead of normal threads, behind every media thread, and
/// round-robin among themselves so no one of them holds a core. The Swift pool makes and ends
/// its threads on its own, and a new thread inherits the scheduling of the thread that made it
/// (a media thread's, as likely as not), so a keeper thread looks at every thread of the
/// process once a second (`periodSeconds`): it raises the normal ones and brings down those
/// that inherited a media priority. `PARLEY_CLOCK_PRIORITY=normal` leaves every thread alone,
/// as it does the clocks.
package enum SignallingPriority {
    /// `SCHED_RR` priority 1, below `ClockPriority.networkRealtimePriority` (5).
    static let realtimePriority: Int32 = 1
    static let periodSeconds: UInt32 = 1

    private static let started = Atomic<Bool>(false)
    /// The threads `ClockPriority` made real-time, by kernel thread id.
    private static let mediaThreads = Lock<Set<pid_t>>([])

    /// Starts the keeper once per process. Returns false, and keeps nothing, where real-time
    /// scheduling is not allowed or is turned off.
    @discardableResult
    package static func keep() -> Bool {
        if let setting = getenv(ClockPriority.environmentVariable), String(cString: setting) == "normal" { return false }
        guard started.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return true }
        guard adjustThreads() else { return false }
        let keeper = Thread {
            ThreadIdentity.nameCurrentThread("parley-priorities")
            while true {
                sleep(periodSeconds)
                adjustThreads()
            }
        }
        keeper.name = "parley-priorities"
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

    /// The calling thread's kernel id (gettid(2), which Swift does not import): /proc/thread-self
    /// links to PID/task/TID.
    private static func currentThreadID() -> pid_t? {
        var link = [CChar](repeating: 0, count: 64)
        let count = readlink("/proc/thread-self", &link, link.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: link.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self).split(separator: "/").last.flatMap { pid_t($0) }
    }

    /// Whether a thread that is not a media thread, scheduled so, is moved to `SCHED_RR` 1: a
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
        for entry in entries {
            guard let thread = pid_t(entry), !media.contains(thread) else { continue }
            var current = sched_param()
            let policy = sched_getscheduler(thread)
            guard policy >= 0, sched_getparam(thread, &current) == 0, moves(policy: policy, priority: current.sched_priority) else { continue }
            var wanted = sched_param(sched_priority: realtimePriority)
            if sched_setscheduler(thread, SCHED_RR, &wanted) != 0, errno == EPERM { return false }
        }
        return true
    }
}
