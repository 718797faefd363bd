import Foundation
@testable import Parley
import TestSupport
import Testing

/// ICE restarts by re-INVITE between two Parley phones through the real Kamailio (docs/sip.md,
/// "Keeping calls"): alice restarts and bob's phone answers the re-INVITE with its own new
/// credentials instead of 488; then bob restarts and alice answers. Each time the restarting call
/// moves to a new candidate pair (fresh sockets, another port), reports `recovered(iceRestart)`,
/// and audio goes on both ways in the same call.
@Suite(.serialized, .tags(.realPeer)) struct SIPICERestartThroughKamailioTests {
    @Test func eachSideRestartsICEByReInviteAndTheOtherAnswersIt() async throws {
        let kamailio = try await KamailioRegistrar()
        defer { kamailio.stop() }
        let alice = try await SIPCallThroughKamailioTests.phone("alice", at: kamailio, play: "tone:440")
        let bob = try await SIPCallThroughKamailioTests.phone("bob", at: kamailio, play: "tone:880")
        let (call, incoming) = try await SIPCallThroughKamailioTests.dialAndOffer(alice, bob)
        let aliceEvents = EventRecorder(call.events)
        let bobCall = incoming.call
        let bobEvents = EventRecorder(bobCall.events)
        try await incoming.answer()
        _ = try await aliceEvents.next("active") { $0 == .state(.active) }
        try await ReconnectionTests.expectAudioBothWays(call, bobCall, "before the restarts")

        for (restarting, events, who) in [(call, aliceEvents, "alice"), (bobCall, bobEvents, "bob")] {
            let before = try #require(await restarting.statistics().candidatePair)
            try await restarting.restartMedia()
            _ = try await events.next("\(who)'s restart recovered", within: 10) { $0 == .recovered(.iceRestart) }
            try await waitUntil("\(who)'s call on a new pair", within: 10) {
                await restarting.statistics().candidatePair.map { $0.localPort != before.localPort } ?? false
            }
            try await ReconnectionTests.expectAudioBothWays(call, bobCall, "after \(who)'s restart")
            #expect(await call.state == .active)
            #expect(await bobCall.state == .active)
        }

        await call.hangup()
        let reason = try await withTimeout(seconds: 10) { await bobCall.waitUntilDone() }
        #expect(reason.cause == "NORMAL_CLEARING")
        await alice.close()
        await bob.close()
    }
}
