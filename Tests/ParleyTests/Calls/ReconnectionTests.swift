import Foundation
import ICE
import Media
import Parley
import Signaling
import Switch
import TestSupport
import Testing

/// Calls that outlive a broken path or a dropped socket, between two real clients through the
/// embedded switch on loopback (real ICE, DTLS-SRTP, Opus). The network-change cases run in
/// network namespaces in scripts/test-reconnect.
@Suite(.leakChecked, .serialized, .tags(.slow), .notInQuickCheck) struct ReconnectionTests {
    static func client(_ login: String, at url: WebSocketURL, play: String, reconnectTimeout: Duration = .seconds(20),
                       reconnectDelay: Duration = .milliseconds(200), sdpObserver: (@Sendable (SDPExchange) -> Void)? = nil) throws -> VoiceClient {
        var configuration = try CallThroughSwitchTests.configuration(login, at: url, play: play)
        configuration.media.sdpObserver = sdpObserver
        configuration.reconnection.initialDelay = reconnectDelay
        configuration.reconnection.reconnectTimeout = reconnectTimeout
        // Loopback never changes; the netns fault tests cover the network monitor.
        configuration.reconnection.watchesNetwork = false
        return VoiceClient(configuration: configuration)
    }

    struct Connected {
        let alice: VoiceClient
        let bob: VoiceClient
        let call: Call
        let bobCall: Call
        let aliceEvents: EventRecorder<CallEvent>
        let bobEvents: EventRecorder<CallEvent>
        let aliceClientEvents: EventRecorder<VoiceClientEvent>
    }

    static func connectedCall(through embedded: EmbeddedSwitch, reconnectTimeout: Duration = .seconds(20),
                              bobReconnectDelay: Duration = .milliseconds(200), aliceSDP: (@Sendable (SDPExchange) -> Void)? = nil,
                              bobSDP: (@Sendable (SDPExchange) -> Void)? = nil) async throws -> Connected {
        let alice = try client("alice", at: embedded.url, play: "tone:440", reconnectTimeout: reconnectTimeout, sdpObserver: aliceSDP)
        let bob = try client("bob", at: embedded.url, play: "tone:880", reconnectTimeout: reconnectTimeout, reconnectDelay: bobReconnectDelay,
                             sdpObserver: bobSDP)
        let aliceClientEvents = EventRecorder(alice.events)
        let (call, incoming) = try await CallThroughSwitchTests.dialAndOffer(from: alice, to: bob)
        let aliceEvents = EventRecorder(call.events)
        let bobEvents = EventRecorder(incoming.call.events)
        try await incoming.answer()
        _ = try await aliceEvents.next("active") { $0 == .state(.active) }
        _ = try await aliceEvents.next("secured") { if case .secured = $0 { true } else { false } }
        _ = try await bobEvents.next("secured") { if case .secured = $0 { true } else { false } }
        try await expectAudioBothWays(call, incoming.call, "before")
        return Connected(alice: alice, bob: bob, call: call, bobCall: incoming.call, aliceEvents: aliceEvents, bobEvents: bobEvents,
                         aliceClientEvents: aliceClientEvents)
    }

    /// Fifty more packets (a second of audio) arrive on each side from now on.
    static func expectAudioBothWays(_ a: Call, _ b: Call, _ when: String) async throws {
        let start = (await a.statistics().audio?.packetsReceived ?? 0, await b.statistics().audio?.packetsReceived ?? 0)
        try await waitUntil("a second of audio both ways \(when)", within: 10) {
            let now = (await a.statistics().audio?.packetsReceived ?? 0, await b.statistics().audio?.packetsReceived ?? 0)
            return now.0 >= start.0 + 50 && now.1 >= start.1 + 50
        }
    }

    @Test func anICERestartThroughTheServerMovesTheCallToANewPairAndAudioGoesOn() async throws {
        let embedded = try await CallThroughSwitchTests.startSwitch()
        afterTest { await embedded.stop() }
        let bed = try await Self.connectedCall(through: embedded)
        let before = try #require(await bed.call.statistics().candidatePair)

        try await bed.call.restartMedia()
        let pair = try await bed.aliceEvents.next("a new selected pair") { if case .selectedPair = $0 { true } else { false } }
        let after = try #require(pair.selectedPair)
        // A restart gathers on fresh sockets: the same loopback address, another port.
        #expect(after.localPort != before.localPort)
        try await Self.expectAudioBothWays(bed.call, bed.bobCall, "after the restart")
        // The pair's round-trip time is RTCP's on the media it carries.
        try await waitUntil("the new pair's round-trip time", within: 15) {
            let statistics = await bed.call.statistics()
            guard let rtt = statistics.candidatePair?.roundTripTime, let pair = statistics.candidatePair else { return false }
            return pair.localPort == after.localPort && rtt > .zero && rtt < .seconds(1)
        }
        #expect(await bed.call.state == .active)
        #expect(await bed.bobCall.state == .active)
        #expect(await embedded.activeCallIDs == [bed.call.id])
        await bed.alice.disconnect()
        await bed.bob.disconnect()
    }

    @Test func aRestartTheFarEndCannotTakeLeavesTheCallToRecoverBeforeTheTimeout() async throws {
        let embedded = try await CallThroughSwitchTests.startSwitch()
        afterTest { await embedded.stop() }
        // Bob is away for 3 s: the switch refuses alice's restart meanwhile.
        let bed = try await Self.connectedCall(through: embedded, bobReconnectDelay: .seconds(3))
        await embedded.dropConnections(of: "bob")
        await #expect(throws: ParleyError.self) { try await bed.call.restartMedia() }
        // Recovered within the reconnect timeout (20 s) once bob is back: by a retried restart or
        // by bob's re-attach, whichever comes first.
        _ = try await bed.aliceEvents.next("recovered once bob is back", within: 15) { if case .recovered = $0 { true } else { false } }
        #expect(await bed.call.state == .active)
        try await Self.expectAudioBothWays(bed.call, bed.bobCall, "after the retried restart")
        #expect(await bed.call.failure == nil)
        await bed.alice.disconnect()
        await bed.bob.disconnect()
    }

    @Test func aHeldCallWithNoRTPRecoversFromAnICERestartAndStaysHeld() async throws {
        let embedded = try await CallThroughSwitchTests.startSwitch()
        afterTest { await embedded.stop() }
        let bed = try await Self.connectedCall(through: embedded)
        try await bed.call.hold()
        _ = try await bed.bobEvents.next("remotely held") { $0 == .state(.remotelyHeld) }
        // Neither side sends while held, and neither reads that as a disrupted path.
        try await bed.call.restartMedia()
        _ = try await bed.aliceEvents.next("recovered by the restart", within: 15) { $0 == .recovered(.iceRestart) }
        #expect(await bed.call.state == .held)
        await bed.alice.disconnect()
        await bed.bob.disconnect()
    }

    @Test func aDroppedSocketReconnectsWithTheSameSessidAndTheCallIsReattached() async throws {
        let embedded = try await CallThroughSwitchTests.startSwitch()
        afterTest { await embedded.stop() }
        let bed = try await Self.connectedCall(through: embedded)

        await embedded.dropConnections(of: "alice")
        _ = try await bed.aliceEvents.next("reconnecting") { $0 == .state(.reconnecting) }
        let attempt = try await bed.aliceClientEvents.next("a reconnect attempt") { if case .reconnecting = $0 { true } else { false } }
        if case .reconnecting(let number, let delay) = attempt {
            #expect(number == 1)
            #expect(delay >= .milliseconds(150) && delay <= .milliseconds(250), "200 ms ± 25 %")
        }
        _ = try await bed.aliceEvents.next("active again") { $0 == .state(.active) }
        _ = try await bed.aliceEvents.next("recovered by re-attaching") { $0 == .recovered(.reattach) }
        try await Self.expectAudioBothWays(bed.call, bed.bobCall, "after re-attaching")
        // The same call, and no second one: on the client and on the switch.
        #expect(await bed.alice.activeCalls.map(\.id) == [bed.call.id])
        #expect(await embedded.activeCallIDs == [bed.call.id])
        #expect(await bed.bobCall.state == .active)
        #expect(await bed.call.failure == nil)

        // Hangup works after the recovery and reaches the far end.
        await bed.call.hangup()
        let reason = await bed.bobCall.waitUntilDone()
        #expect(reason.cause == "NORMAL_CLEARING")
        await bed.alice.disconnect()
        await bed.bob.disconnect()
    }

    @Test func withTheServerGoneTheCallEndsAtTheReconnectTimeoutAndRefusesHoldMeanwhile() async throws {
        let embedded = try await CallThroughSwitchTests.startSwitch()
        let bed = try await Self.connectedCall(through: embedded, reconnectTimeout: .seconds(2))

        await embedded.stop()
        _ = try await bed.aliceEvents.next("reconnecting") { $0 == .state(.reconnecting) }
        await #expect(throws: ParleyError.self) { try await bed.call.hold() }
        let started = ContinuousClock.now
        let reason = await bed.call.waitUntilDone()
        let waited = ContinuousClock.now - started
        #expect(reason.localStatus == .reconnectTimeout)
        #expect(await bed.call.failure?.kind == .reconnectTimeout)
        #expect(waited < .seconds(5))
        #expect(await bed.alice.activeCalls.isEmpty)
        await bed.alice.disconnect()
        await bed.bob.disconnect()
    }

    @Test func backoffDoublesFromTheInitialDelayUpToTheCapWithinTheJitterBand() {
        let policy = ReconnectionPolicy()
        #expect(policy.delay(beforeAttempt: 1, random: 0) == .seconds(1))
        #expect(policy.delay(beforeAttempt: 2, random: 0) == .seconds(2))
        #expect(policy.delay(beforeAttempt: 5, random: 0) == .seconds(16))
        #expect(policy.delay(beforeAttempt: 6, random: 0) == .seconds(30))
        #expect(policy.delay(beforeAttempt: 60, random: 0) == .seconds(30))
        #expect(policy.delay(beforeAttempt: 1, random: -1) == .milliseconds(750))
        #expect(policy.delay(beforeAttempt: 1, random: 1) == .milliseconds(1250))
        #expect(policy.delay(beforeAttempt: 6, random: 7) == .milliseconds(37_500))
    }

    @Test func backoffStopsDoublingAtTheRetryIntervalWhileCallsWait() {
        var policy = ReconnectionPolicy()
        #expect(policy.delay(beforeAttempt: 1, random: 0, callsWaiting: true) == .seconds(1))
        #expect(policy.delay(beforeAttempt: 4, random: 0, callsWaiting: true) == .seconds(2))
        #expect(policy.delay(beforeAttempt: 4, random: 1, callsWaiting: true) == .milliseconds(2500))
        #expect(policy.delay(beforeAttempt: 4, random: 0, callsWaiting: false) == .seconds(8))
        policy.retryInterval = .seconds(60)
        #expect(policy.delay(beforeAttempt: 9, random: 0, callsWaiting: true) == .seconds(30))
    }
}
