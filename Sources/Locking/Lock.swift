import Synchronization
#if PARLEY_THREAD_SANITIZER
import CThreadSanitizer
#endif

/// The one lock type Parley uses: `Synchronization.Mutex`, made visible to ThreadSanitizer.
///
/// On Linux `Mutex` waits with raw futex calls inside libswiftSynchronization.so, which TSan
/// neither instruments nor intercepts, so it would see no order between two closures run under
/// the same lock and report them as a race. In `scripts/sanitize`'s thread build
/// (-DPARLEY_THREAD_SANITIZER) `withLock` tells TSan what the lock does: an acquire on the lock's
/// address right after taking it, a release right before giving it up. In every other build the
/// body is `Mutex.withLock` itself (docs/hardening.md, "Sanitizers").
@frozen
package struct Lock<Value: ~Copyable>: ~Copyable {
    @usableFromInline
    let mutex: Mutex<Value>

    @inlinable
    package init(_ initialValue: consuming sending Value) {
        mutex = Mutex(initialValue)
    }

    // Always inlined, as Mutex.withLock is: left to the optimizer, a large closure (as in
    // MediaSession.statistics) kept this wrapper as an unspecialised generic call.
    @inlinable @inline(__always)
    package borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        #if PARLEY_THREAD_SANITIZER
        // The Mutex's own address: fixed while the lock is shared, one per lock, and taken
        // from a borrow, which TSan does not count as an access (the inout value's address
        // would be, before the acquire).
        let lockAddress = UnsafeMutableRawPointer(mutating: withUnsafePointer(to: mutex) { $0 })
        return try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            __tsan_acquire(lockAddress)
            defer { __tsan_release(lockAddress) }
            return try body(&value)
        }
        #else
        return try mutex.withLock(body)
        #endif
    }
}

extension Lock: Sendable where Value: ~Copyable {}
