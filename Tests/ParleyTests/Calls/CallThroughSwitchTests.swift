import Foundation
import Media
import Parley
import Signaling
import Switch
import TestSupport
import Testing

/// Two real clients call each other through the embedded switch on loopback: real ICE (libnice
/// on `lo`), DTLS-SRTP, Opus, RFC 4733, and the Verto call flow.
@Suite(.serialized) struct CallThroughSwitchTests {
    static func configuration(_ login: String, at url: WebSocketURL, play: String, record: String = "null") throws -> VoiceClientConfiguration {
        var configuration = VoiceClientConfiguration(server: url, credentials: .password(login: login, password: login + "-secret"))
        configuration.media.allowedInterfaces = ["lo"]
        configuration.media.ipv6 = false
        configuration.media.source = try AudioSourceSpec(play)
        configuration.media.sink = try AudioSinkSpec(record)
        configuration.media.disruptionTimeout = .milliseconds(400)
        return configuration
    }

    static func client(_ login: String, at url: WebSocketURL, play: String, record: String) throws -> VoiceClient {
        VoiceClient(configuration: try configuration(login, at: url, play: play, record: record))
    }

    /// Logs both clients in, has `caller` dial `login` and waits (bounded) for the offer at
    /// `callee`: the start that the two-client tests through the switch share.
    static func dialAndOffer(from caller: VoiceClient, to callee: VoiceClient, login: String = "bob",
                             options: DialOptions = DialOptions()) async throws -> (call: Call, incoming: IncomingCall) {
        let calleeEvents = EventRecorder(callee.events)
        try await caller.connect()
        try await callee.connect()
        let call = try await caller.dial(login, options: options)
        let offered = try await calleeEvents.next("an incoming call") { if case .incomingCall = $0 { true } else { false } }
        return (call, try #require(offered.incomingCall))
    }

    static func startSwitch() async throws -> EmbeddedSwitch {
        try await EmbeddedSwitch.start(
            listen: WebSocketURL(parsing: "ws://127.0.0.1:0"),
            configuration: SwitchConfiguration(accounts: [
                SwitchAccount(login: "alice", password: "alice-secret"), SwitchAccount(login: "bob", password: "bob-secret"),
            ]))
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("parley-call-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func callersHearEachOtherAndSendDigitsHoldAndHangUp() async throws {
        let embedded = try await Self.startSwitch()
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let aliceRecording = directory.appendingPathComponent("alice.wav").path
        let bobRecording = directory.appendingPathComponent("bob.wav").path
        let alice = try Self.client("alice", at: embedded.url, play: "tone:440", record: aliceRecording)
        let bob = try Self.client("bob", at: embedded.url, play: "tone:880", record: bobRecording)
        let (call, incoming) = try await Self.dialAndOffer(from: alice, to: bob)
        let aliceEvents = EventRecorder(call.events)
        // The switch names the caller by login when the invite carries no caller id.
        #expect(incoming.callerNumber == "alice")
        #expect(incoming.call.remoteParty == "alice")
        _ = try await aliceEvents.next("ringing") { $0 == .state(.ringing) }
        let bobEvents = EventRecorder(incoming.call.events)
        try await incoming.answer()
        _ = try await aliceEvents.next("active") { $0 == .state(.active) }
        _ = try await aliceEvents.next("secured") { if case .secured = $0 { true } else { false } }
        _ = try await bobEvents.next("secured") { if case .secured = $0 { true } else { false } }
        let bobCall = incoming.call
        try await waitUntil("a second of audio both ways") {
            let received = (await call.statistics().audio?.packetsReceived ?? 0, await bobCall.statistics().audio?.packetsReceived ?? 0)
            return received.0 >= 50 && received.1 >= 50
        }

        try await call.sendDTMF("5#")
        _ = try await bobEvents.next("digit 5") { $0 == .dtmf("5") }
        _ = try await bobEvents.next("digit #") { $0 == .dtmf("#") }
        try await bobCall.sendDTMF("7")
        _ = try await aliceEvents.next("digit 7") { $0 == .dtmf("7") }

        try await call.hold()
        #expect(await call.state == .held)
        _ = try await bobEvents.next("remotely held") { $0 == .state(.remotelyHeld) }
        await #expect(throws: ParleyError.self) { try await bobCall.sendDTMF("1") }
        // Held either way, neither side sends RTP, and neither calls that a disruption.
        try await HoldThroughSwitchTests.expectNoDisruption(aliceEvents, bobEvents, for: .seconds(1))
        try await call.unhold()
        _ = try await bobEvents.next("active again") { $0 == .state(.active) }
        try await ReconnectionTests.expectAudioBothWays(call, bobCall, "after the unhold")

        await call.hangup()
        let ended = try await bobEvents.next("the hangup") { if case .state(.done) = $0 { true } else { false } }
        let reason = try #require(ended.endReason)
        #expect(reason.cause == "NORMAL_CLEARING")
        #expect(reason.localStatus == nil)
        #expect(await call.terminationReason?.localStatus == .endedByLocalUser)
        await alice.disconnect()
        await bob.disconnect()
        await embedded.stop()

        let aliceHeard = try #require(try Recording.firstToneFrequency(aliceRecording))
        let bobHeard = try #require(try Recording.firstToneFrequency(bobRecording))
        #expect(abs(aliceHeard - 880) <= 5, "alice heard \(aliceHeard) Hz")
        #expect(abs(bobHeard - 440) <= 5, "bob heard \(bobHeard) Hz")
    }

    @Test func aRejectedCallEndsBusyOnBothSides() async throws {
        let embedded = try await Self.startSwitch()
        let alice = try Self.client("alice", at: embedded.url, play: "silence", record: "null")
        let bob = try Self.client("bob", at: embedded.url, play: "silence", record: "null")
        let (call, incoming) = try await Self.dialAndOffer(from: alice, to: bob)
        try await incoming.reject()
        let reason = try await withTimeout(seconds: 10) { await call.waitUntilDone() }
        #expect(reason.cause == "USER_BUSY")
        #expect(await incoming.call.terminationReason?.localStatus == .rejected)
        await #expect(throws: ParleyError.self) { try await incoming.answer() }
        await alice.disconnect()
        await bob.disconnect()
        await embedded.stop()
    }
}
