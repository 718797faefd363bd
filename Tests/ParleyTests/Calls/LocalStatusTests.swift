import Logging
@testable import Parley
import Signaling
import Testing

/// Each of Kandy's end reasons 9900-9908 maps to one local status the client can reach; the ones
/// reached through the switch with real media are in TransferThroughSwitchTests
/// (session-completed, call-forwarded, ended-by-unregister, not-provided).
@Suite struct LocalStatusTests {
    @Test func theNineKandyReasonsEachHaveAStatus() {
        let codes = Dictionary(grouping: TerminationReason.LocalStatus.allCases, by: \.kandyCode)
        #expect(codes.keys.sorted() == Array(9900...9908))
        for code in 9900...9908 where code != 9906 { #expect(codes[code]?.count == 1, "\(code) has \(codes[code] ?? [])") }
        #expect(Set(codes[9906] ?? []) == [.endedByError, .networkLost, .noMedia, .reconnectTimeout, .noAnswer, .agentLost])
    }

    @Test func anEndingTheClientDidNotDecideIsReportedNotProvided() {
        let remote = TerminationReason(cause: "NORMAL_CLEARING", causeCode: 16)
        #expect(remote.localStatus == nil)
        #expect(remote.reportedLocalStatus == .notProvided)
        #expect(remote.isNormal)
    }

    @Test func localUserRejectAndIgnoreAreReachedByTheirOperations() throws {
        for (operation, status) in [(CallOperation.hangup, TerminationReason.LocalStatus.endedByLocalUser), (.reject, .rejected), (.ignore, .ignored)] {
            var machine = CallStateMachine(direction: .incoming)
            try machine.begin(operation)
            guard case .done(let reason) = machine.state else { Issue.record("\(operation) left the call \(machine.state)"); continue }
            #expect(reason.localStatus == status)
        }
    }

    @Test func transferNeedsAnAnsweredCallAndForwardARingingIncomingOne() {
        #expect(CallStateMachine.allowedStates(for: .transfer, direction: .outgoing) == [.active, .held, .remotelyHeld, .doubleHeld])
        #expect(CallStateMachine.allowedStates(for: .forward, direction: .incoming) == [.ringing])
        #expect(CallStateMachine.allowedStates(for: .forward, direction: .outgoing).isEmpty)
    }

    @Test func aRingingCallTheServerClearsBecauseAnotherDeviceTookItWasAnsweredElsewhere() async throws {
        let ringing = Call(id: "elsewhere", direction: .incoming, remoteParty: "alice", signalling: CallRaceTests.RecordingSignalling(holdsOpen: false),
                           media: CallRaceTests.media(), logger: Logger(label: "test.status"))
        await ringing.handle(.remoteHangup(TerminationReason(cause: "LOSE_RACE", causeCode: 502)))
        let reason = try #require(await ringing.terminationReason)
        #expect(reason.localStatus == .answeredElsewhere)
        #expect(reason.reportedLocalStatus.kandyCode == 9904)

        let cleared = Call(id: "cleared", direction: .incoming, remoteParty: "alice", signalling: CallRaceTests.RecordingSignalling(holdsOpen: false),
                           media: CallRaceTests.media(), logger: Logger(label: "test.status"))
        await cleared.handle(.remoteHangup(TerminationReason(cause: "ORIGINATOR_CANCEL", causeCode: 487)))
        #expect(await cleared.terminationReason?.reportedLocalStatus == .notProvided)
    }

    @Test func anAnsweredCallWithoutMediaEndsNoMediaUnlessItWasSentOn() throws {
        let cleared = TerminationReason(cause: "NORMAL_CLEARING", causeCode: 16)
        #expect(try #require(Call.endingWithoutMedia(cleared)).localStatus == .noMedia)
        // A transfer that completes, or a forward followed, before the first packet: where it went.
        #expect(Call.endingWithoutMedia(cleared.with(localStatus: .sessionCompleted)) == nil)
        #expect(Call.endingWithoutMedia(cleared.with(localStatus: .callForwarded)) == nil)
        // An ending that was not normal keeps its own reason.
        #expect(Call.endingWithoutMedia(TerminationReason(cause: "USER_BUSY", causeCode: 17)) == nil)
    }

    @Test func anAnswerThatCannotBeAppliedEndsTheCallByError() async throws {
        let signalling = CallRaceTests.RecordingSignalling(holdsOpen: false)
        let call = CallRaceTests.call(.outgoing, signalling)
        try await call.dial(destination: "bob", options: DialOptions())
        await call.handle(.answered(sdp: "not an SDP"))
        let reason = try #require(await call.terminationReason)
        #expect(reason.localStatus == .endedByError)
        #expect(reason.reportedLocalStatus.kandyCode == 9906)
    }

    @Test func aForwardOrTransferInTheWrongStateIsRefusedBeforeAnythingIsSent() async throws {
        let signalling = CallRaceTests.RecordingSignalling(holdsOpen: false)
        let call = CallRaceTests.call(.outgoing, signalling)
        try await call.dial(destination: "bob", options: DialOptions())
        let refused = await #expect(throws: ParleyError.self) { try await call.transfer(to: "carol") }
        #expect(refused?.kind == .callState)
        let empty = await #expect(throws: ParleyError.self) { try await call.transfer(to: " ") }
        #expect(empty?.kind == .configuration)
        #expect(await !signalling.requests.contains { $0.hasPrefix("transfer") })
        await call.hangup()
    }

    @Test func janusCannotTransfer() async throws {
        let janus = JanusCallSignalling(url: try WebSocketURL(parsing: "ws://127.0.0.1:9"), destination: .echoTest, display: "me",
                                        logger: Logger(label: "test.janus"))
        let error = await #expect(throws: ParleyError.self) { try await janus.transfer(callID: "x", destination: "carol") }
        #expect(error?.kind == .callState)
    }
}
