import Foundation
import ICE
import Locking
import Testing

/// Loop-bound code checks where it runs in a debug build, as swift-nio's NIOLoopBound does
/// (docs/architecture.md, "Loop-bound types"), and each loop's thread carries its name.
@Suite struct LoopBoundTests {
    /// Off its thread, bound code stops a debug build at once (a release build checks nothing).
    @Test func boundCodeOffItsThreadStopsADebugBuild() async {
        await #expect(processExitsWith: .failure) {
            let owner = ThreadIdentity()
            let adopted = DispatchSemaphore(value: 0)
            let thread = Thread {
                owner.adoptCurrentThread()
                adopted.signal()
            }
            thread.start()
            adopted.wait()
            owner.assertCurrent("a test's loop-bound work")
        }
    }

    @Test func boundCodeOnItsThreadRuns() async {
        let loop = NetworkLoop(name: "parley-test-bound")
        let onLoop = await withCheckedContinuation { continuation in
            loop.perform { continuation.resume(returning: loop.isCurrentThread) }
        }
        #expect(onLoop)
        #expect(!loop.isCurrentThread)
    }

    /// The kernel knows a loop's thread by its name (what `top -H` and the tests' leak check
    /// show), cut to 15 characters; before, it kept the name of the thread that made it.
    @Test func aLoopsThreadCarriesItsName() async {
        let loop = NetworkLoop(name: "parley-test-named")
        let name = await withCheckedContinuation { continuation in
            loop.perform { continuation.resume(returning: (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "") }
        }
        #expect(name.trimmingCharacters(in: .whitespacesAndNewlines) == "parley-test-nam")
    }
}
