import Foundation
import Media
import Parley
import Signaling
import Switch
import TestSupport
import Testing

/// Blind transfer, forward and logging out with a call up, between real clients through the
/// embedded switch on loopback (real ICE, DTLS-SRTP, Opus): who leaves ends with the Kandy
/// status for it, and who is sent on hears the new far end.
@Suite(.serialized) struct TransferThroughSwitchTests {
    static func startSwitch() async throws -> EmbeddedSwitch {
        try await EmbeddedSwitch.start(
            listen: WebSocketURL(parsing: "ws://127.0.0.1:0"),
            configuration: SwitchConfiguration(accounts: ["alice", "bob", "carol"].map { SwitchAccount(login: $0, password: $0 + "-secret") }))
    }

    static func isIncoming(_ event: VoiceClientEvent) -> Bool {
        if case .incomingCall = event { true } else { false }
    }

    /// Waits until `call` has received a second of audio.
    static func hearing(_ call: Call, _ what: String) async throws {
        try await waitUntil(what) { (await call.statistics().audio?.packetsReceived ?? 0) >= 50 }
    }

    /// A second of audio more than `call` had received when this was asked: after a transfer the
    /// count may still be the old leg's (already past 50) or start again from zero on the new one.
    static func hearingMore(_ call: Call, _ what: String) async throws {
        let before = await call.statistics().audio?.packetsReceived ?? 0
        try await waitUntil(what) {
            let now = await call.statistics().audio?.packetsReceived ?? 0
            return now >= before + 50 || (now < before && now >= 50)
        }
    }

    /// alice (440 Hz), bob and carol (660 Hz), logged in; bob's and carol's offers recorded.
    struct Parties {
        let alice: VoiceClient
        let bob: VoiceClient
        let carol: VoiceClient
        let bobOffers: EventRecorder<VoiceClientEvent>
        let carolOffers: EventRecorder<VoiceClientEvent>

        func disconnect() async {
            for client in [alice, bob, carol] { await client.disconnect() }
        }
    }

    static func parties(at url: WebSocketURL, bob: (play: String, record: String), carolRecord: String = "null") async throws -> Parties {
        let alice = try CallThroughSwitchTests.client("alice", at: url, play: "tone:440", record: "null")
        let bobClient = try CallThroughSwitchTests.client("bob", at: url, play: bob.play, record: bob.record)
        let carol = try CallThroughSwitchTests.client("carol", at: url, play: "tone:660", record: carolRecord)
        let parties = Parties(alice: alice, bob: bobClient, carol: carol, bobOffers: EventRecorder(bobClient.events), carolOffers: EventRecorder(carol.events))
        for client in [alice, bobClient, carol] { try await client.connect() }
        return parties
    }

    @Test func aBlindTransferSendsTheFarEndToTheTargetAndCompletesOurSession() async throws {
        let embedded = try await Self.startSwitch()
        let directory = try CallThroughSwitchTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bobRecording = directory.appendingPathComponent("bob.wav").path
        let parties = try await Self.parties(at: embedded.url, bob: ("tone:880", bobRecording))
        let (alice, bobOffers, carolOffers) = (parties.alice, parties.bobOffers, parties.carolOffers)

        let call = try await alice.dial("bob")
        let aliceEvents = EventRecorder(call.events)
        let incoming = try #require(try await bobOffers.next("bob's incoming call", where: Self.isIncoming).incomingCall)
        let bobEvents = EventRecorder(incoming.call.events)
        try await incoming.answer()
        try await Self.hearing(incoming.call, "bob hearing alice")

        await #expect(throws: ParleyError.self) { try await call.transfer(to: "nobody") }
        _ = try await aliceEvents.next("the refused transfer") { if case .transfer(.failed(destination: "nobody", _)) = $0 { true } else { false } }
        #expect(await call.state == .active, "a refused transfer leaves the call as it was")
        await #expect(throws: ParleyError.self) { try await call.transfer(to: "two words") }

        try await call.transfer(to: "carol")
        let reason = try await withTimeout(seconds: 10) { await call.waitUntilDone() }
        #expect(reason.localStatus == .sessionCompleted)
        #expect(reason.reportedLocalStatus.kandyCode == 9905)
        #expect(reason.isNormal)
        _ = try await aliceEvents.next("transfer completed") { $0 == .transfer(.completed(destination: "carol")) }
        _ = try await bobEvents.next("bob sent on") { $0 == .transfer(.transferred(destination: "carol")) }

        let carolIncoming = try #require(try await carolOffers.next("carol's incoming call", where: Self.isIncoming).incomingCall)
        try await carolIncoming.answer()
        try await Self.hearingMore(incoming.call, "bob hearing carol")
        try await Self.hearing(carolIncoming.call, "carol hearing bob")
        #expect(await incoming.call.state == .active)
        await carolIncoming.call.hangup()
        let bobReason = try await withTimeout(seconds: 10) { await incoming.call.waitUntilDone() }
        #expect(bobReason.reportedLocalStatus == .notProvided)
        await parties.disconnect()
        await embedded.stop()

        // The recording of bob's second leg is finished when that leg's session stops, which may
        // come a moment after the call reports its end: read it until it holds a tone (bounded).
        var heard: Double?
        for _ in 0..<50 where heard == nil {
            heard = try Recording.firstToneFrequency(bobRecording)
            if heard == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        let bobHeard = try #require(heard, "bob's recording holds no tone 5 s after the call ended")
        #expect(abs(bobHeard - 660) <= 5, "bob heard \(bobHeard) Hz after the transfer, not carol's 660")
    }

    @Test func aForwardedCallRingsAtTheTargetAndEndsCallForwardedHere() async throws {
        let embedded = try await Self.startSwitch()
        let parties = try await Self.parties(at: embedded.url, bob: ("silence", "null"))
        let (alice, bobOffers, carolOffers) = (parties.alice, parties.bobOffers, parties.carolOffers)

        let call = try await alice.dial("bob")
        let aliceEvents = EventRecorder(call.events)
        let incoming = try #require(try await bobOffers.next("bob's incoming call", where: Self.isIncoming).incomingCall)
        try await incoming.forward(to: "carol")
        let reason = try await withTimeout(seconds: 10) { await incoming.call.waitUntilDone() }
        #expect(reason.localStatus == .callForwarded)
        #expect(reason.reportedLocalStatus.kandyCode == 9908)
        await #expect(throws: ParleyError.self) { try await incoming.answer() }
        _ = try await aliceEvents.next("alice sent on") { $0 == .transfer(.transferred(destination: "carol")) }

        let carolIncoming = try #require(try await carolOffers.next("carol's incoming call", where: Self.isIncoming).incomingCall)
        try await carolIncoming.answer()
        _ = try await aliceEvents.next("active with carol") { $0 == .state(.active) }
        try await Self.hearing(call, "alice hearing carol")
        await parties.disconnect()
        await embedded.stop()
    }

    @Test func loggingOutWithACallUpEndsItEndedByUnregister() async throws {
        let embedded = try await Self.startSwitch()
        let alice = try CallThroughSwitchTests.client("alice", at: embedded.url, play: "tone:440", record: "null")
        let bob = try CallThroughSwitchTests.client("bob", at: embedded.url, play: "tone:880", record: "null")
        let bobOffers = EventRecorder(bob.events)
        try await alice.connect()
        try await bob.connect()
        let call = try await alice.dial("bob")
        let incoming = try #require(try await bobOffers.next("bob's incoming call", where: Self.isIncoming).incomingCall)
        try await incoming.answer()
        try await Self.hearing(call, "alice hearing bob")
        await alice.disconnect()
        let reason = try await withTimeout(seconds: 10) { await call.waitUntilDone() }
        #expect(reason.localStatus == .endedByUnregister)
        #expect(reason.reportedLocalStatus.kandyCode == 9907)
        let bobReason = try await withTimeout(seconds: 10) { await incoming.call.waitUntilDone() }
        #expect(bobReason.localStatus == nil)
        #expect(bobReason.reportedLocalStatus == .notProvided)
        #expect(bobReason.reportedLocalStatus.kandyCode == 9900)
        await bob.disconnect()
        await embedded.stop()
    }
}
