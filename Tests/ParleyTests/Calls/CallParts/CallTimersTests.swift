@testable import Parley
import Signaling
import Testing

/// A call's timers on their own, and the ending a SIP call's cause makes.
@Suite struct CallTimersTests {
    private func sleeper() -> Task<Void, Never> { Task { try? await Task.sleep(for: .seconds(600)) } }

    @Test func theAnswerStopsTheRingTimerAndTheEndStopsBoth() {
        var timers = CallTimers()
        let ring = sleeper(), media = sleeper(), lateRing = sleeper()
        timers.startRing(ring)
        timers.startRing(lateRing)
        #expect(lateRing.isCancelled && !ring.isCancelled)
        timers.answered()
        #expect(ring.isCancelled)
        timers.startMedia(media)
        #expect(!media.isCancelled)
        timers.cancelTimers()
        #expect(media.isCancelled)
    }

    @Test func aNewLegsPumpReplacesTheOldOne() {
        var timers = CallTimers()
        let first = sleeper(), second = sleeper()
        timers.pumpLeg(first)
        timers.pumpLeg(second)
        #expect(first.isCancelled && !second.isCancelled)
        timers.stopLegPump()
        #expect(second.isCancelled)
    }

    @Test func aSIPEndingCarriesTheCauseTheResponseAndTheCallID() {
        #expect(TerminationReason(.originatorCancel, sipCallID: "abc")
            == TerminationReason(cause: "ORIGINATOR_CANCEL", causeCode: 487, sipCallID: "abc"))
        #expect(SIPEndReason.reason(forStatus: 486, phrase: "Busy Here", callID: "abc")
            == TerminationReason(cause: "USER_BUSY", causeCode: 17, sipCode: 486, sipReason: "Busy Here", sipCallID: "abc"))
    }
}
