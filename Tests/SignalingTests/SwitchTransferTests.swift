import Foundation
import Signaling
import Switch
import TestSupport
import Testing

/// The switch's blind transfer and forward: `modify` with `action: "transfer"` and a
/// `destination`; the other party is told to call the target, the asking party leaves.
@Suite(.leakChecked) struct SwitchTransferTests {
    private func callInProgress(answered: Bool) async throws
        -> (harness: SwitchHarness, alice: VertoClient, aliceEvents: EventRecorder<VertoEvent>, bob: VertoClient, bobEvents: EventRecorder<VertoEvent>, carol: VertoClient,
            callID: String)
    {
        let harness = try await SwitchHarness.start { $0.accounts.append(SwitchAccount(login: "carol", password: "carol-secret")) }
        let (alice, aliceEvents) = try await harness.readyClient("alice", "alice-secret")
        let (bob, bobEvents) = try await harness.readyClient("bob", "bob-secret")
        let (carol, _) = try await harness.readyClient("carol", "carol-secret")
        let callID = UUID().uuidString.lowercased()
        _ = try await alice.invite(VertoDialParameters(callID: callID, destination: "bob"), sdp: SwitchHarness.offer)
        _ = try await bobEvents.next("incoming call") { if case .incomingCall = $0 { true } else { false } }
        if answered { _ = try await bob.answer(callID: callID, sdp: SwitchHarness.answer) }
        return (harness, alice, aliceEvents, bob, bobEvents, carol, callID)
    }

    private static func transferRequest(_ event: VertoEvent) -> (callID: String, destination: String?)? {
        if case .modify(let callID, "transfer", let params) = event { (callID, params["destination"]?.stringValue) } else { nil }
    }

    @Test func aTransferOfAnAnsweredCallTellsTheOtherPartyToCallTheTarget() async throws {
        let call = try await callInProgress(answered: true)
        afterTest { await call.harness.embedded.stop() }
        try await call.alice.transfer(callID: call.callID, destination: "carol")
        let told = try await call.bobEvents.next("the transfer request") { Self.transferRequest($0) != nil }
        let request = try #require(Self.transferRequest(told))
        #expect(request.callID == call.callID)
        #expect(request.destination == "carol")
        #expect(await call.harness.embedded.activeCallIDs.isEmpty, "the switch let go of the transferred call")
    }

    @Test func aTransferToNobodyOrWithoutADestinationIsRefusedAndTheCallStays() async throws {
        let call = try await callInProgress(answered: true)
        afterTest { await call.harness.embedded.stop() }
        await #expect(throws: SignalingError.self) { try await call.alice.transfer(callID: call.callID, destination: "nobody") }
        await #expect(throws: SignalingError.self) { try await call.alice.transfer(callID: call.callID, destination: "alice") }
        await #expect(throws: SignalingError.self) { try await call.alice.transfer(callID: call.callID, destination: "") }
        #expect(await call.harness.embedded.activeCallIDs == [call.callID])
    }

    @Test func theCalledPartyCanForwardARingingCallButTheCallerCannot() async throws {
        let call = try await callInProgress(answered: false)
        afterTest { await call.harness.embedded.stop() }
        await #expect(throws: SignalingError.self) { try await call.alice.transfer(callID: call.callID, destination: "carol") }
        try await call.bob.transfer(callID: call.callID, destination: "carol")
        let told = try await call.aliceEvents.next("the forward") { Self.transferRequest($0) != nil }
        #expect(Self.transferRequest(told)?.destination == "carol")
        #expect(await call.harness.embedded.activeCallIDs.isEmpty)
    }
}
