import CNice
import Foundation
import Locking

/// One network thread: a GLib main loop (its own main context) on which the libnice agents, TLS
/// tunnels and netlink sockets given to it live. `shared` carries the network monitor and every
/// agent made without a loop; a media engine's shards each have one more
/// (docs/architecture.md). A loop lives as long as the process.
/// Unchecked: holds GLib's context and loop pointers, which GLib allows any thread to reference and invoke on.
package final class NetworkLoop: @unchecked Sendable {
    // Immutable after init; GLib's context and loop are thread-safe to reference.
    let context: OpaquePointer
    private let loop: OpaquePointer
    /// The loop's thread, written before `init` returns and never again.
    private let thread = ThreadIdentity()

    package static let shared = NetworkLoop(name: "parley-network")

    /// Starts a loop on a new thread called `name`.
    package init(name: String) {
        // GTask's type, registered by the first nice_agent_close_async, starts GLib's worker
        // context and so makes a wakeup descriptor, and GLib aborts the process when it gets
        // none: registered here, while descriptors are free, a call closing at the limit cannot
        // take the process down. (g_type_ensure: the get_type function is G_GNUC_CONST, so a
        // call whose result goes unused may be dropped.)
        g_type_ensure(g_task_get_type())
        context = g_main_context_new()
        loop = g_main_loop_new(context, 0)
        let started = DispatchSemaphore(value: 0)
        let handles = LoopHandles(context: context, loop: loop)
        let identity = thread
        let thread = Thread {
            ThreadName.adopt(name)
            g_main_context_push_thread_default(handles.context)
            CoalescingPoll.install(on: handles.context)
            identity.adoptCurrentThread()
            started.signal()
            g_main_loop_run(handles.loop)
        }
        thread.start()
        started.wait()
    }

    /// True on this loop's thread: where its agents' packets and signals arrive.
    package var isCurrentThread: Bool { thread.isCurrent }

    /// Stops a debug build where code bound to this loop runs on another thread (libnice agents
    /// and GLib sources belong to the context that made them: docs/architecture.md, "Why this
    /// shape"); a release build checks nothing, so the packet path pays nothing.
    @inline(__always)
    func assertOnLoopThread(_ what: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
        thread.assertCurrent("\(what()) (network loop)", file: file, line: line)
    }

    /// Runs `work` on the network thread (soon, never inline), so that GIO objects made in it
    /// attach to this loop's context.
    package func perform(_ work: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(WorkBox(work)).toOpaque()
        g_main_context_invoke_full(context, G_PRIORITY_DEFAULT, { data in
            let box = Unmanaged<WorkBox>.fromOpaque(data!).takeRetainedValue()
            box.work()
            return 0
        }, box, nil)
    }

    /// Calls `work` on the network thread after `delay`; returns a handle for `cancel`.
    @discardableResult
    func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> UInt32 {
        let milliseconds = UInt32(clamping: delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000)
        let source = g_timeout_source_new(milliseconds)!
        let box = Unmanaged.passRetained(WorkBox(work)).toOpaque()
        g_source_set_callback(source, { data in
            Unmanaged<WorkBox>.fromOpaque(data!).takeUnretainedValue().work()
            return 0
        }, box, { data in
            Unmanaged<WorkBox>.fromOpaque(data!).release()
        })
        let id = g_source_attach(source, context)
        g_source_unref(source)
        return id
    }

    /// Calls `work` on the network thread every `interval` until it returns false or the handle
    /// is cancelled; returns a handle for `cancel`.
    func repeating(every interval: Duration, _ work: @escaping @Sendable () -> Bool) -> UInt32 {
        let milliseconds = UInt32(clamping: interval.components.seconds * 1000 + interval.components.attoseconds / 1_000_000_000_000_000)
        let source = g_timeout_source_new(milliseconds)!
        let box = Unmanaged.passRetained(RepeatingBox(work)).toOpaque()
        g_source_set_callback(source, { data in
            Unmanaged<RepeatingBox>.fromOpaque(data!).takeUnretainedValue().work() ? 1 : 0
        }, box, { data in
            Unmanaged<RepeatingBox>.fromOpaque(data!).release()
        })
        let id = g_source_attach(source, context)
        g_source_unref(source)
        return id
    }

    func cancel(_ sourceID: UInt32) {
        guard sourceID != 0, let source = g_main_context_find_source_by_id(context, sourceID) else { return }
        g_source_destroy(source)
    }
}

// Unchecked: GLib's context and loop pointers carried into the loop's own thread at start.
private struct LoopHandles: @unchecked Sendable {
    let context: OpaquePointer
    let loop: OpaquePointer
}

private final class RepeatingBox {
    let work: @Sendable () -> Bool
    init(_ work: @escaping @Sendable () -> Bool) { self.work = work }
}

private final class WorkBox {
    let work: @Sendable () -> Void
    init(_ work: @escaping @Sendable () -> Void) { self.work = work }
}
