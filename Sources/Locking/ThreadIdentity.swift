import Glibc
import Synchronization

/// The one thread that owns some state (a network loop's GLib context, the signalling thread's
/// libwebsockets context), so that code bound to it can check where it runs, as swift-nio's
/// `NIOLoopBound` does: `assertCurrent` stops a debug build at once when bound code runs
/// elsewhere, and costs nothing in a release build. Written once by the thread itself before
/// anyone reads it (the writer signals whoever waits for its start), read from any thread after.
package final class ThreadIdentity: Sendable {
    /// The thread's `pthread_t`, 0 until adopted (glibc never hands out 0).
    private let thread = Atomic<UInt>(0)

    package init() {}

    /// Called once, on the thread to remember.
    package func adoptCurrentThread() {
        thread.store(pthread_self(), ordering: .releasing)
    }

    package var isCurrent: Bool {
        let adopted = thread.load(ordering: .acquiring)
        return adopted != 0 && pthread_equal(adopted, pthread_self()) != 0
    }

    /// Stops a debug build when called off the owning thread, naming what ran there; checks
    /// nothing in a release build, so a packet path pays nothing.
    @inline(__always)
    package func assertCurrent(_ what: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
        assert(isCurrent, "\(what()) ran off its owning thread", file: file, line: line)
    }
}
