import CNice
import Glibc

/// The poll function of every network loop: GLib's `g_poll` (poll(2) on every source's
/// descriptor, so a wake-up costs O(sockets of the loop)), except that a loop woken by a ready
/// socket less than `spacing` ago first waits out the rest of it. Under load, packets that
/// arrive within one spacing are then read in one wake-up instead of one wake-up each: the
/// O(calls) walk over the loop's sources is paid per spacing, not per packet. An idle or
/// lightly loaded loop (packets further apart than the spacing) never waits.
enum CoalescingPoll {
    /// A received packet waits at most this long: far below a jitter buffer's 20 ms frame, and
    /// ICE and DTLS timers run in tens of milliseconds.
    static let spacingNanoseconds: Int64 = 1_000_000

    /// Installs the poll function on `context`; called on the loop's own thread before it runs.
    static func install(on context: OpaquePointer) {
        lastReadyWake.pointee = 0
        g_main_context_set_poll_func(context, poll)
    }

    /// When this thread's loop last returned from a poll with something ready (CLOCK_MONOTONIC
    /// nanoseconds). A loop runs on one thread for good, so per-thread state is per-loop state.
    private static var lastReadyWake: UnsafeMutablePointer<Int64> {
        if let existing = pthread_getspecific(key) { return existing.assumingMemoryBound(to: Int64.self) }
        let made = UnsafeMutablePointer<Int64>.allocate(capacity: 1)
        made.initialize(to: 0)
        pthread_setspecific(key, made)
        return made
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    private static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    private static let poll: GPollFunc = { descriptors, count, timeout in
        let last = lastReadyWake
        var timeout = timeout
        if timeout != 0, last.pointee != 0 {
            let wait = last.pointee + spacingNanoseconds - now()
            if wait > 0 {
                let sleep = timeout > 0 ? min(wait, Int64(timeout) * 1_000_000) : wait
                var pause = timespec(tv_sec: 0, tv_nsec: Int(sleep))
                var left = timespec()
                while nanosleep(&pause, &left) == -1 && errno == EINTR { pause = left }
                if timeout > 0 { timeout = Int32(max(0, Int64(timeout) - sleep / 1_000_000)) }
            }
        }
        let ready = g_poll(descriptors, count, timeout)
        last.pointee = ready > 0 ? now() : 0
        return ready
    }
}
