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
///
/// Public, not package: a `package` @inlinable body was not inlined into the other modules of a
/// release build, so every call went through the unspecialised generic entry point, which looks
/// `Mutex<Value>`'s metadata up at run time, several times per packet.
///
/// A lock that nests with others has a `LockRank`; a debug build checks each `withLock` of it
/// against the order (`LockOrder`), a release build pays one stored optional and no check.
@frozen
public struct Lock<Value: ~Copyable>: ~Copyable {
    @usableFromInline
    let mutex: Mutex<Value>
    @usableFromInline
    let rank: LockRank?

    @inlinable
    public init(_ initialValue: consuming sending Value, rank: LockRank? = nil) {
        mutex = Mutex(initialValue)
        self.rank = rank
    }

    @inlinable
    public borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        #if DEBUG
        if let rank { LockOrder.willTake(rank) }
        defer { if let rank { LockOrder.didRelease(rank) } }
        #endif
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
