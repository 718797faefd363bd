import Foundation
import Parley
import Testing

@Suite struct CallStateMachineTests {
    @Test func outgoingCallWalksDialingRingingEarlyMediaActiveDone() throws {
        var call = CallStateMachine(direction: .outgoing)
        #expect(call.state == .new)
        try call.begin(.dial)
        #expect(call.state == .dialing)
        let changedRinging = call.handle(.ringing)
        #expect(changedRinging)
        #expect(call.state == .ringing)
        let changedEarly = call.handle(.earlyMedia)
        #expect(changedEarly)
        #expect(call.state == .earlyMedia)
        let changedAnswered = call.handle(.answered)
        #expect(changedAnswered)
        #expect(call.state == .active)
        try call.begin(.hangup)
        #expect(call.state == .done(TerminationReason(cause: "NORMAL_CLEARING", causeCode: 16, localStatus: .endedByLocalUser)))
    }

    @Test func incomingCallIsAnsweredRejectedOrIgnored() throws {
        var answered = CallStateMachine(direction: .incoming)
        #expect(answered.state == .ringing)
        try answered.begin(.answer)
        #expect(answered.state == .answering)
        answered.handle(.answered)
        #expect(answered.state == .active)
        #expect(answered.inFlight == nil)

        var rejected = CallStateMachine(direction: .incoming)
        try rejected.begin(.reject)
        #expect(rejected.state == .done(TerminationReason(cause: "USER_BUSY", causeCode: 17, localStatus: .rejected)))

        var ignored = CallStateMachine(direction: .incoming)
        try ignored.begin(.ignore)
        #expect(ignored.state == .done(TerminationReason(localStatus: .ignored)))
    }

    @Test func aFailedAnswerGoesBackToRinging() throws {
        var call = CallStateMachine(direction: .incoming)
        try call.begin(.answer)
        call.finish(.answer, succeeded: false)
        #expect(call.state == .ringing)
        #expect(call.inFlight == nil)
    }

    @Test func holdStatesCombineLocalAndRemoteHold() throws {
        var call = activeCall()
        try call.begin(.hold)
        #expect(call.state == .active, "hold takes effect when the server confirms it")
        call.finish(.hold, succeeded: true)
        #expect(call.state == .held)
        call.handle(.remoteHold)
        #expect(call.state == .doubleHeld)
        try call.begin(.unhold)
        call.finish(.unhold, succeeded: true)
        #expect(call.state == .remotelyHeld)
        call.handle(.remoteUnhold)
        #expect(call.state == .active)
        try call.begin(.hold)
        call.finish(.hold, succeeded: false)
        #expect(call.state == .active, "a refused hold changes nothing")
    }

    @Test func oneRequestAtATimeButHangupAlways() throws {
        var call = activeCall()
        try call.begin(.hold)
        #expect(throws: CallOperationError(operation: .dtmf, state: "active", reason: "hold is still in progress")) { try call.begin(.dtmf) }
        try call.begin(.mute)
        #expect(call.muted)
        try call.begin(.hangup)
        #expect(call.state.isDone)
        #expect(call.inFlight == nil)
    }

    @Test func disallowedOperationsAreTypedErrorsThatChangeNothing() throws {
        var call = CallStateMachine(direction: .outgoing)
        #expect(throws: CallOperationError(operation: .hold, state: "new", reason: "not allowed while the call is new")) { try call.begin(.hold) }
        #expect(throws: CallOperationError.self) { try call.begin(.answer) }
        #expect(call.state == .new)
        try call.begin(.hangup)
        #expect(throws: CallOperationError.self) { try call.begin(.hangup) }
    }

    @Test func networkLossDropsAndRecoveryReturnsToTheSameState() throws {
        var call = activeCall()
        try call.begin(.hold)
        call.finish(.hold, succeeded: true)
        call.handle(.networkLost)
        #expect(call.state == .dropped)
        #expect(throws: CallOperationError.self) { try call.begin(.unhold) }
        call.handle(.reconnecting)
        #expect(call.state == .reconnecting)
        call.handle(.recovered)
        #expect(call.state == .held)
        call.handle(.networkLost)
        call.handle(.ended(TerminationReason(localStatus: .reconnectTimeout)))
        #expect(call.state == .done(TerminationReason(localStatus: .reconnectTimeout)))
        let revived = call.handle(.recovered)
        #expect(!revived, "nothing revives a finished call")
    }

    @Test func remoteHangupEndsAnyLiveCall() {
        for start in [CallSignal.ringing, .earlyMedia, .answered] {
            var call = CallStateMachine(direction: .outgoing)
            try? call.begin(.dial)
            call.handle(start)
            let reason = TerminationReason(cause: "CALL_REJECTED", causeCode: 21, sipCode: 403)
            call.handle(.remoteHangup(reason))
            #expect(call.state == .done(reason))
        }
    }

    /// docs/calls.md holds the table of which operation is allowed in which state; it must match.
    @Test func docsTableMatchesTheMachine() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/calls.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        #expect(text.contains(CallStateTable.markdown()), "regenerate the table in docs/calls.md from CallStateTable.markdown()")
    }

    private func activeCall() -> CallStateMachine {
        var call = CallStateMachine(direction: .outgoing)
        try? call.begin(.dial)
        call.handle(.answered)
        return call
    }
}
