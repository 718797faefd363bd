import Glibc
import Media
import Testing

/// Which threads the signalling keeper moves to `SCHED_RR` 1 (docs/performance.md, "Call setup").
/// That every thread of a running `parley answer`, `load` and `switch` ends up there or at a
/// media priority is checked on real processes by scripts/test-load.
struct SignallingPriorityTests {
    @Test func normalThreadsAndInheritedMediaPrioritiesMove() {
        #expect(SignallingPriority.moves(policy: SCHED_OTHER, priority: 0))
        // A thread made by a clock (SCHED_FIFO 10) or a network thread (5) inherits its priority.
        #expect(SignallingPriority.moves(policy: SCHED_FIFO, priority: 10))
        #expect(SignallingPriority.moves(policy: SCHED_FIFO, priority: 5))
        #expect(SignallingPriority.moves(policy: SCHED_RR, priority: 5))
    }

    @Test func threadsAlreadyThereAndOtherPoliciesStay() {
        #expect(!SignallingPriority.moves(policy: SCHED_RR, priority: 1))
        // SCHED_BATCH and SCHED_IDLE (<bits/sched.h>, not imported without _GNU_SOURCE).
        #expect(!SignallingPriority.moves(policy: 3, priority: 0))
        #expect(!SignallingPriority.moves(policy: 5, priority: 0))
    }
}
