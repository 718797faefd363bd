import Foundation
import Media
import Parley
import Signaling
import Switch
import TestSupport
import Testing

/// What happens before a call is answered and when the switch goes away, between two real
/// clients through the embedded switch on loopback: a call nobody answers ends `no-answer` on
/// the caller's ring timeout or on the switch's own; a callee's early media reaches the caller
/// before the answer; a switch shutting down sends each party a bye, then a 1001 close frame.
@Suite(.serialized) struct RingingThroughSwitchTests {
    static func startSwitch(noAnswerTimeout: Duration = .seconds(60)) async throws -> EmbeddedSwitch {
        var configuration = SwitchConfiguration(accounts: [
            SwitchAccount(login: "alice", password: "alice-secret"), SwitchAccount(login: "bob", password: "bob-secret"),
        ])
        configuration.noAnswerTimeout = noAnswerTimeout
        return try await EmbeddedSwitch.start(listen: WebSocketURL(parsing: "ws://127.0.0.1:0"), configuration: configuration)
    }

    /// Alice dials bob with `ringTimeout`; bob's client sees the call and does not answer it.
    static func unansweredCall(through embedded: EmbeddedSwitch, ringTimeout: Duration?) async throws -> (VoiceClient, VoiceClient, Call, Call) {
        let alice = try CallThroughSwitchTests.client("alice", at: embedded.url, play: "silence", record: "null")
        let bob = try CallThroughSwitchTests.client("bob", at: embedded.url, play: "silence", record: "null")
        var options = DialOptions()
        options.ringTimeout = ringTimeout
        let (call, offered) = try await CallThroughSwitchTests.dialAndOffer(from: alice, to: bob, options: options)
        return (alice, bob, call, offered.call)
    }

    @Test func aCallNobodyAnswersEndsNoAnswerAtTheCallersRingTimeout() async throws {
        let embedded = try await Self.startSwitch()
        let (alice, bob, call, bobCall) = try await Self.unansweredCall(through: embedded, ringTimeout: .seconds(1))
        let started = ContinuousClock.now
        let reason = try await withTimeout(seconds: 5) { await call.waitUntilDone() }
        let waited = ContinuousClock.now - started
        #expect(reason.cause == "NO_ANSWER" && reason.causeCode == 19 && reason.localStatus == .noAnswer, "\(reason)")
        #expect(!reason.isNormal)
        #expect(waited < .seconds(2), "ended \(waited) after the dial returned")
        // The callee stops ringing: our bye reaches it with the same cause.
        let bobReason = try await withTimeout(seconds: 5) { await bobCall.waitUntilDone() }
        #expect(bobReason.cause == "NO_ANSWER", "\(bobReason)")
        #expect(await embedded.activeCallIDs.isEmpty)
        await alice.disconnect()
        await bob.disconnect()
        await embedded.stop()
    }

    @Test func theSwitchEndsACallNobodyAnswersAtItsOwnNoAnswerTimeout() async throws {
        let embedded = try await Self.startSwitch(noAnswerTimeout: .seconds(1))
        let (alice, bob, call, bobCall) = try await Self.unansweredCall(through: embedded, ringTimeout: nil)
        let reason = try await withTimeout(seconds: 5) { await call.waitUntilDone() }
        #expect(reason.cause == "NO_ANSWER" && reason.causeCode == 19 && reason.localStatus == nil, "\(reason)")
        let bobReason = try await withTimeout(seconds: 5) { await bobCall.waitUntilDone() }
        #expect(bobReason.cause == "NO_ANSWER", "\(bobReason)")
        await alice.disconnect()
        await bob.disconnect()
        await embedded.stop()
    }

    @Test func theCalleesEarlyMediaReachesTheCallerBeforeTheAnswer() async throws {
        let embedded = try await Self.startSwitch()
        let directory = try CallThroughSwitchTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let aliceRecording = directory.appendingPathComponent("alice.wav").path
        let alice = try CallThroughSwitchTests.client("alice", at: embedded.url, play: "tone:440", record: aliceRecording)
        let bob = try CallThroughSwitchTests.client("bob", at: embedded.url, play: "tone:880", record: "null")
        let (call, incoming) = try await CallThroughSwitchTests.dialAndOffer(from: alice, to: bob)
        let aliceEvents = EventRecorder(call.events)

        try await incoming.sendEarlyMedia()
        _ = try await aliceEvents.next("early media") { $0 == .state(.earlyMedia) }
        try await waitUntil("bob's early media arriving at alice", within: 10) {
            (await call.statistics().audio?.packetsReceived ?? 0) >= 50
        }
        #expect(await call.state == .earlyMedia)
        #expect(await incoming.call.state == .ringing)
        let earlySamples = await call.statistics().audio?.totalSamplesPlayed ?? 0

        try await incoming.answer()
        _ = try await aliceEvents.next("active") { $0 == .state(.active) }
        try await ReconnectionTests.expectAudioBothWays(call, incoming.call, "after the answer")
        await call.hangup()
        _ = try await withTimeout(seconds: 5) { await incoming.call.waitUntilDone() }
        await alice.disconnect()
        await bob.disconnect()
        await embedded.stop()

        // What alice played before bob answered is bob's 880 Hz.
        let samples = try Recording.samples(aliceRecording)
        let early = Array(samples[0..<min(samples.count, earlySamples)])
        let frequency = try #require(try Recording.firstToneFrequency(aliceRecording))
        #expect(early.contains { abs(Int($0)) > 1000 }, "alice heard nothing before the answer")
        #expect(abs(frequency - 880) <= 5, "alice heard \(frequency) Hz as early media")
    }

    @Test func aSwitchShuttingDownSendsEachPartyAByeThenAGoingAwayClose() async throws {
        let embedded = try await CallThroughSwitchTests.startSwitch()
        let bed = try await ReconnectionTests.connectedCall(through: embedded)
        await embedded.shutDown()
        let aliceReason = try await withTimeout(seconds: 5) { await bed.call.waitUntilDone() }
        let bobReason = try await withTimeout(seconds: 5) { await bed.bobCall.waitUntilDone() }
        #expect(aliceReason.cause == "SYSTEM_SHUTDOWN" && bobReason.cause == "SYSTEM_SHUTDOWN", "\(aliceReason); \(bobReason)")
        // bob's client events have one reader already (the bed's); every socket's close code is
        // in TransportRobustnessTests.
        _ = try await bed.aliceClientEvents.next("the socket closed with 1001", within: 5) {
            if case .disconnected(let reason) = $0 { reason.contains("code 1001") } else { false }
        }
        await bed.alice.disconnect()
        await bed.bob.disconnect()
    }
}
