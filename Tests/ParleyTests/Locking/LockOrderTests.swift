import Foundation
import Locking
import Testing

/// The debug build's lock-order check (`Sources/Locking/LockOrder.swift`): nesting ranked locks
/// in the order of docs/architecture.md's "Lock order" passes, nesting them the other way, or
/// two of one rank, is reported. The reports go to a handler here instead of stopping the
/// process, as they do in a debug build.
@Suite(.serialized) struct LockOrderTests {
    final class Reports: Sendable {
        private let lock = Lock<[String]>([])
        func add(_ message: String) { lock.withLock { $0.append(message) } }
        var all: [String] { lock.withLock { $0 } }
    }

    final class RankedLocks: Sendable {
        let clock = Lock((), rank: .mediaSessionClock)
        let sourceSwitch = Lock((), rank: .audioSourceSwitch)
        let otherSourceSwitch = Lock((), rank: .audioSourceSwitch)
        let sinkSwitch = Lock((), rank: .audioSinkSwitch)
        let bridge = Lock((), rank: .agentBridge)
    }

    #if DEBUG
    @Test func theDocumentedOrderIsNotReported() {
        let reports = Reports()
        let locks = RankedLocks()
        LockOrder.reportingViolations(to: reports.add) {
            locks.clock.withLock { _ in
                locks.sourceSwitch.withLock { _ in locks.bridge.withLock { _ in } }
                locks.sinkSwitch.withLock { _ in locks.bridge.withLock { _ in } }
                // A bot's barge-in: a listener of the sink stops the prompt the source plays.
                locks.sinkSwitch.withLock { _ in locks.sourceSwitch.withLock { _ in locks.bridge.withLock { _ in } } }
            }
        }
        #expect(reports.all.isEmpty)
        #expect(LockOrder.heldByThisThread.isEmpty)
    }

    @Test func takingALowerRankWhileHoldingAHigherIsReported() throws {
        let reports = Reports()
        let locks = RankedLocks()
        LockOrder.reportingViolations(to: reports.add) {
            locks.bridge.withLock { _ in locks.clock.withLock { _ in } }
        }
        let report = try #require(reports.all.first, "AgentBridge.lock then MediaSession.clockLock was not reported")
        #expect(reports.all.count == 1)
        #expect(report.contains("taking MediaSession.clockLock (rank 10) while holding AgentBridge.lock (rank 30)"))
        #expect(LockOrder.heldByThisThread.isEmpty)
    }

    @Test func takingTwoLocksOfOneRankIsReported() {
        let reports = Reports()
        let locks = RankedLocks()
        LockOrder.reportingViolations(to: reports.add) {
            locks.sourceSwitch.withLock { _ in locks.otherSourceSwitch.withLock { _ in } }
        }
        #expect(reports.all.count == 1)
    }

    @Test func takingTheSinkSwitchWhileHoldingTheSourceSwitchIsReported() {
        let reports = Reports()
        let locks = RankedLocks()
        LockOrder.reportingViolations(to: reports.add) {
            locks.sourceSwitch.withLock { _ in locks.sinkSwitch.withLock { _ in } }
        }
        #expect(reports.all.count == 1)
    }

    @Test func eachThreadHasItsOwnHeldRanks() {
        let reports = Reports()
        let locks = RankedLocks()
        let finished = LockOrder.reportingViolations(to: reports.add) {
            locks.bridge.withLock { _ in
                // Another thread taking the clock lock is not nested in this thread's bridge lock.
                let done = DispatchSemaphore(value: 0)
                Thread {
                    locks.clock.withLock { _ in }
                    done.signal()
                }.start()
                return done.wait(timeout: .now() + 10) == .success
            }
        }
        #expect(finished)
        #expect(reports.all.isEmpty)
    }
    #endif
}
