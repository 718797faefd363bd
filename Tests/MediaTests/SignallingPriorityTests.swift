import Glibc
import Media
import Foundation
import Locking
import Testing
import TestSupport

/// Which threads the signalling keeper moves to `SCHED_RR` 5, and bulk work's step down to 1
/// (docs/performance.md, "Setup under load").
/// That every thread of a running `parley answer`, `load` and `switch` ends up there or at a
/// media priority is checked on real processes by scripts/test-load.
struct SignallingPriorityTests {
    @Test func normalThreadsAndInheritedMediaPrioritiesMove() {
        #expect(SignallingPriority.moves(policy: SCHED_OTHER, priority: 0))
        // A thread made by a clock (SCHED_FIFO 10) or a network thread (5) inherits its priority.
        #expect(SignallingPriority.moves(policy: SCHED_FIFO, priority: 10))
        #expect(SignallingPriority.moves(policy: SCHED_FIFO, priority: 5))
        // The priority signalling had before it went ahead of the network threads.
        #expect(SignallingPriority.moves(policy: SCHED_RR, priority: 1))
    }

    @Test func threadsAlreadyThereAndOtherPoliciesStay() {
        #expect(!SignallingPriority.moves(policy: SCHED_RR, priority: SignallingPriority.realtimePriority))
        // SCHED_BATCH and SCHED_IDLE (<bits/sched.h>, not imported without _GNU_SOURCE).
        #expect(!SignallingPriority.moves(policy: 3, priority: 0))
        #expect(!SignallingPriority.moves(policy: 5, priority: 0))
    }

    /// Signalling is level with the network threads, below the clocks; bulk work below both.
    @Test func signallingIsLevelWithNetworkThreadsBelowClocksAndBulkWorkBelowMedia() {
        #expect(SignallingPriority.realtimePriority == ClockPriority.networkRealtimePriority)
        #expect(SignallingPriority.realtimePriority < 10)
        #expect(SignallingPriority.bulkPriority < ClockPriority.networkRealtimePriority)
    }

    /// A thread at the signalling priority runs bulk work at `bulkPriority` and gets its own
    /// priority back after; a thread at another scheduling is left alone.
    @Test(.needsHostRoot) func bulkWorkStepsDownAndBack() {
        let seen = Lock<[String]>([])
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            defer { done.signal() }
            let describe = { () -> String in
                var parameters = sched_param()
                _ = sched_getparam(0, &parameters)
                return "\(sched_getscheduler(0))/\(parameters.sched_priority)"
            }
            // Whatever this thread inherited (a keeper elsewhere in the process may have raised it).
            var normal = sched_param(sched_priority: 0)
            _ = sched_setscheduler(0, SCHED_OTHER, &normal)
            seen.withLock { $0.append(SignallingPriority.runAsBulkWork { describe() }) }
            var signalling = sched_param(sched_priority: SignallingPriority.realtimePriority)
            guard sched_setscheduler(0, SCHED_RR, &signalling) == 0 else { return seen.withLock { $0.append("refused") } }
            seen.withLock { $0.append(SignallingPriority.runAsBulkWork { describe() }) }
            seen.withLock { $0.append(describe()) }
        }
        thread.start()
        #expect(done.wait(timeout: .now() + 10) == .success)
        let rr = SCHED_RR
        #expect(seen.withLock { $0 } == ["0/0", "\(rr)/\(SignallingPriority.bulkPriority)", "\(rr)/\(SignallingPriority.realtimePriority)"])
    }
}
