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
        let handedBack = recovery.stop()
        #expect(handedBack.watch == nil && handedBack.opening == nil)
        let afterStopping = recovery.begin()
        #expect(!afterStopping && !recovery.recovering && recovery.stopped)
    }

    /// The flow an attempt is opening goes back to the phone that stops, to be closed with it:
    /// no flow outlives its phone while a REGISTER on it waits for its timeout.
    @Test func theFlowBeingOpenedIsHandedBackWhenThePhoneStops() throws {
        var recovery = SIPFlowRecovery(options: SIPFlowOptions())
        let opening = SIPEndpoint(server: try SIPServerAddress(parsing: "sip:127.0.0.1:5060"), options: SIPFlowOptions(), timers: SIPTimers())
        let began = recovery.begin()
        #expect(began)
        recovery.attempting(opening)
        let handedBack = recovery.stop()
        #expect(handedBack.opening === opening)
        #expect(recovery.opening == nil)
    }

    @Test func attemptsBackOffDoublingUpToTheMaximum() {
        let recovery = SIPFlowRecovery(options: SIPFlowOptions())
        let delays = (1...recovery.attempts + 1).map { recovery.delay(before: $0) }
        #expect(delays == [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(8)])
    }
}
