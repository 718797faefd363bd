@testable import Parley
import Signaling
import Testing

/// A phone's flow recovery state on its own: one recovery at a time, none after the phone
/// stopped, and the backoff between attempts.
@Suite struct SIPFlowRecoveryTests {
    @Test func oneRecoveryAtATimeAndNoneAfterStopping() {
        var recovery = SIPFlowRecovery(options: SIPFlowOptions())
        let first = recovery.begin()
        let overlapping = recovery.begin()
        #expect(first && !overlapping && recovery.recovering)
        recovery.end()
        let next = recovery.begin()
        #expect(next)
        #expect(recovery.stop() == nil)
        let afterStopping = recovery.begin()
        #expect(!afterStopping && !recovery.recovering && recovery.stopped)
    }

    @Test func attemptsBackOffDoublingUpToTheMaximum() {
        let recovery = SIPFlowRecovery(options: SIPFlowOptions())
        let delays = (1...recovery.attempts + 1).map { recovery.delay(before: $0) }
        #expect(delays == [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(8)])
    }
}
