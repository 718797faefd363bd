import Glibc

/// The scheduling a media clock's thread asked for and got. A clock that steps a hundred calls
/// must not wait in the run queue behind the process's other threads (or another process's):
/// its frames would leave late. It asks for real-time scheduling (`SCHED_FIFO`) where the
/// process may (root, `CAP_SYS_NICE`, or an `RLIMIT_RTPRIO` above 0, as rtkit or
/// /etc/security/limits.conf grant), else a raised nice value for that thread alone (within
/// `RLIMIT_NICE`), else nothing, quietly: a normal thread works, it only falls behind sooner.
package enum ClockPriority: Sendable, Equatable, CustomStringConvertible {
    case realtime(Int32)
    case nice(Int32)
    case normal

    /// The `SCHED_FIFO` priority asked for: low among real-time threads (audio servers use
    /// 5-20), since a clock that overruns must not shut out the kernel's own real-time work.
    static let realtimePriority: Int32 = 10
    /// Nice values tried in turn when real-time is refused (lower is sooner).
    static let niceValues: [Int32] = [-10, -5, -1]

    /// The environment variable that turns the request off (`normal`), for profilers that do not
    /// cope with real-time threads.
    package static let environmentVariable = "PARLEY_CLOCK_PRIORITY"

    package var description: String {
        switch self {
        case .realtime(let priority): "SCHED_FIFO \(priority)"
        case .nice(let value): "nice \(value)"
        case .normal: "normal"
        }
    }

    /// What a shard's network thread asks for: one step below its clock, so a tick still
    /// preempts packet reading, and above every normal thread. A network thread left at normal
    /// priority beside real-time clocks starves whenever the machine is busy: its calls' packets
    /// wait in the socket buffers, the jitter buffers run dry, and concealment and FEC make each
    /// tick dearer, which starves it further (docs/performance.md, "Why the hold fell behind the ramp").
    /// Its loop sleeps after every busy wake-up (`CoalescingPoll`), so it cannot hold a core.
    package static let networkRealtimePriority: Int32 = 5
    static let networkNiceValues: [Int32] = [-5, -1]

    /// On the clock's own thread, before its first tick.
    static func raiseCurrentThread() -> ClockPriority {
        raiseCurrentThread(realtime: realtimePriority, nice: niceValues)
    }

    /// On a shard's network thread, before its calls' first packets (`networkRealtimePriority`).
    package static func raiseNetworkThread() -> ClockPriority {
        raiseCurrentThread(realtime: networkRealtimePriority, nice: networkNiceValues)
    }

    private static func raiseCurrentThread(realtime: Int32, nice: [Int32]) -> ClockPriority {
        if let setting = getenv(environmentVariable), String(cString: setting) == "normal" { return .normal }
        var limit = rlimit()
        let allowed = getrlimit(RLIMIT_RTPRIO_VALUE, &limit) == 0 ? limit.rlim_cur : 0
        // With CAP_SYS_NICE the limit does not apply; without it, the soft limit caps the priority.
        for priority in [realtime, Int32(clamping: min(allowed, UInt(realtime)))] where priority > 0 {
            var parameters = sched_param(sched_priority: priority)
            if pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters) == 0 {
                SignallingPriority.mediaThreadStarted()
                return .realtime(priority)
            }
        }
        // On Linux a nice value belongs to a thread, and `who` 0 is the calling one (man 2 setpriority).
        let thread: id_t = 0
        for value in nice where setpriority(__priority_which_t(PRIO_PROCESS.rawValue), thread, value) == 0 {
            return .nice(value)
        }
        return .normal
    }

    /// RLIMIT_RTPRIO from <sys/resource.h>, whose enum does not import by that name.
    private static let RLIMIT_RTPRIO_VALUE = __rlimit_resource_t(14)
}
