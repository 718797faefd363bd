import Foundation
import Synchronization

/// The process's file descriptors against its `RLIMIT_NOFILE`. Every call holds some (a UDP
/// socket per local address and component, a recording's WAV file), so a fleet of a few hundred
/// calls passes the soft limit of 1024 that Debian starts a login shell with, while the hard
/// limit above it is usually far higher. `raiseSoftLimit()` lifts the soft limit to the hard one
/// once per process; where it may not, it carries on quietly, as the media clock's priority
/// request does (docs/architecture.md, "File descriptors").
///
/// Running out must fail one call with a reason that names it, never the process: GLib aborts
/// when it cannot make a main context's wakeup descriptor, and libnice reports a socket it could
/// not open only as a missing candidate. So a call starts only while `reservedForProcess`
/// descriptors stay free (`checkRoomForCall`), and the failure paths that meet the limit
/// anyway say so (`exhausted`).
package enum FileDescriptorLimit {
    /// Free descriptors a new call leaves untouched: its own (one or two sockets per local
    /// address, a recording, a --save-sdp file), those of the calls being set up beside it, and
    /// the process's (a new shard's wakeup, a reconnecting WebSocket, /proc reads for `clock`).
    package static let reservedForProcess = 16

    private static let raised = Atomic<Bool>(false)

    /// The soft limit raised to the hard one (never above it), once per process. Returns the
    /// soft limit in force afterwards; nil where it cannot be read.
    @discardableResult
    package static func raiseSoftLimit() -> Int? {
        if raised.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged {
            var limit = rlimit()
            if getrlimit(resource, &limit) == 0, limit.rlim_cur < limit.rlim_max {
                limit.rlim_cur = limit.rlim_max
                // Refused (a seccomp filter, say): the old limit stays, calls beyond it fail by name.
                _ = setrlimit(resource, &limit)
            }
        }
        return softLimit
    }

    /// The soft limit now; nil where it cannot be read, or when there is none (RLIM_INFINITY,
    /// all ones, which Swift does not import).
    package static var softLimit: Int? {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        return Int(clamping: limit.rlim_cur)
    }

    /// Descriptors open now, counted in /proc/self/fd (one getdents per few hundred; for a
    /// call's start and the `clock` event, never per packet). Nil when the directory cannot be
    /// opened, which itself takes a descriptor: at the limit exactly, it is nil.
    package static func openCount() -> Int? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            if entry.pointee.d_name.0 != UInt8(ascii: ".") { count += 1 }
        }
        // The directory's own descriptor is among the entries.
        return count - 1
    }

    /// Descriptors a call is assumed to take at most, for `callsBeforeRecount`.
    static let descriptorsPerCall = 8
    /// Calls that may start before the next count: a count costs about 1 µs per 2 descriptors
    /// open (1 ms at 2000), so far from the limit it is not repeated for every call, and near it,
    /// it is.
    private static let callsBeforeRecount = Atomic<Int>(0)

    /// Throws when fewer than `reservedForProcess` descriptors are free: the call is not started.
    package static func checkRoomForCall() throws(ICEError) {
        if callsBeforeRecount.subtract(1, ordering: .relaxed).newValue >= 0 { return }
        guard let limit = softLimit else { return }
        guard let open = openCount() else { throw .outOfFileDescriptors(open: nil, limit: limit) }
        let free = limit - open - reservedForProcess
        if free < 0 { throw .outOfFileDescriptors(open: open, limit: limit) }
        callsBeforeRecount.store(free / descriptorsPerCall, ordering: .relaxed)
    }

    /// After a system call failed with `error`, or a library failed without one: the error that
    /// names the limit when descriptors ran out, nil otherwise.
    package static func exhausted(errno error: Int32? = nil) -> ICEError? {
        guard let limit = softLimit else { return nil }
        if let error, error == EMFILE || error == ENFILE { return .outOfFileDescriptors(open: openCount(), limit: limit) }
        let open = openCount()
        if let open, limit - open >= 2 { return nil }
        return .outOfFileDescriptors(open: open, limit: limit)
    }

    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
}
