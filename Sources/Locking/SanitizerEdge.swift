#if PARLEY_THREAD_SANITIZER
import CThreadSanitizer
#endif

/// A happens-before edge that ThreadSanitizer cannot see on its own, told to it in the sanitize
/// build only (-DPARLEY_THREAD_SANITIZER; docs/hardening.md, "Sanitizers"). In every other build
/// both calls are empty.
///
/// The one such edge so far: a continuation resumed from a thread of our own before its task
/// reached `await`. The Swift runtime then resumes the task at once, after an atomic load TSan
/// does not see (`swift_continuation_await`'s fast path makes no `_swift_tsan_acquire`), so
/// what the resuming thread wrote looks unsynchronised with what the task reads.
package enum SanitizerEdge {
    /// On the thread handing work over, right before the hand-over (`resume`).
    @inlinable
    package static func release(_ object: AnyObject) {
        #if PARLEY_THREAD_SANITIZER
        __tsan_release(Unmanaged.passUnretained(object).toOpaque())
        #endif
    }

    /// On the thread receiving it, right after (after the `await`).
    @inlinable
    package static func acquire(_ object: AnyObject) {
        #if PARLEY_THREAD_SANITIZER
        __tsan_acquire(Unmanaged.passUnretained(object).toOpaque())
        #endif
    }
}
