import Foundation
@testable import Parley
import Switch
import TestSupport
import Testing

/// The RTP timeout on a whole call: two real clients through the embedded switch on loopback,
/// the far end's media gone without a bye (its leg stopped under its call, as a reloaded tab's
/// goes). The call ends `no-media` with a `media-timeout` error and its bye reaches the far end
/// (docs/calls.md, "Media that stops").
@Suite(.leakChecked, .serialized) struct RTPTimeoutThroughSwitchTests {
    @Test func aCallWhoseFarEndWentSilentEndsNoMediaAndSaysBye() async throws {
        let embedded = try await CallThroughSwitchTests.startSwitch()
        afterTest { await embedded.stop() }
        var aliceConfiguration = try CallThroughSwitchTests.configuration("alice", at: embedded.url, play: "tone:440")
        aliceConfiguration.media.rtpTimeout = .seconds(1)
        let alice = VoiceClient(configuration: aliceConfiguration)
        let bob = VoiceClient(configuration: try CallThroughSwitchTests.configuration("bob", at: embedded.url, play: "tone:880"))
        afterTest { await alice.disconnect(); await bob.disconnect() }
        let (call, incoming) = try await CallThroughSwitchTests.dialAndOffer(from: alice, to: bob)
        let aliceEvents = EventRecorder(call.events)
        let bobEvents = EventRecorder(incoming.call.events)
        try await incoming.answer()
        _ = try await aliceEvents.next("active") { $0 == .state(.active) }
        try await ReconnectionTests.expectAudioBothWays(call, incoming.call, "before bob goes silent")

        let silentSince = ContinuousClock.now
        await incoming.call.leg?.stop()
        let error = try await aliceEvents.next("alice's media-timeout error", within: 5) { if case .error = $0 { true } else { false } }
        #expect(error == .error(ParleyError(kind: .mediaTimeout, message: "no RTP or RTCP from the far end for 1.0 seconds (--rtp-timeout): it went away without hanging up")))
        let ended = try await aliceEvents.next("alice's call ended") { if case .state(.done) = $0 { true } else { false } }
        let reason: TerminationReason? = if case .state(.done(let reason)) = ended { reason } else { nil }
        #expect(try #require(reason).localStatus == .noMedia)
        let waited = ContinuousClock.now - silentSince
        #expect(waited >= .seconds(1) && waited < .seconds(4), "ended \(waited) after bob went silent")
        _ = try await bobEvents.next("alice's bye at bob") { if case .state(.done) = $0 { true } else { false } }
    }
}
