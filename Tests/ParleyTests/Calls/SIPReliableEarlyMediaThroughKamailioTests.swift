import Foundation
@testable import Parley
import Signaling
import TestSupport
import Testing

/// RFC 3262 through the real Kamailio: bob's early media goes to alice in a reliable 183
/// (alice's INVITE supports 100rel), alice's PRACK crosses Kamailio in the early dialog and is
/// answered, bob's audio reaches alice before the answer, and the answer follows the PRACK.
extension SIPCallThroughKamailioTests {
    @Test func bobsReliableEarlyMediaIsPRACKedThroughKamailioAndHeardBeforeTheAnswer() async throws {
        let kamailio = try await KamailioRegistrar()
        defer { kamailio.stop() }
        let alice = try await Self.phone("alice", at: kamailio, play: "tone:440")
        let bob = try await Self.phone("bob", at: kamailio, play: "tone:880")
        let (call, incoming) = try await Self.dialAndOffer(alice, bob)
        let aliceEvents = EventRecorder(call.events)
        let bobLegs = try #require(await incoming.call.signalling as? SIPCallLegs)
        let bobSignalling = await bobLegs.latest

        try await incoming.sendEarlyMedia()
        #expect(await bobSignalling.reliability.provisionals.unacknowledged != nil, "bob's 183 was not sent reliably")
        _ = try await aliceEvents.next("early media (a reliable 183 through Kamailio)") { $0 == .state(.earlyMedia) }
        try await waitUntil("alice's PRACK reaching bob through Kamailio", within: 10) {
            await bobSignalling.reliability.provisionals.unacknowledged == nil
        }
        #expect(await !bobSignalling.reliability.failed)
        try await waitUntil("bob's early media arriving at alice", within: 10) {
            (await call.statistics().audio?.packetsReceived ?? 0) >= 50
        }
        #expect(await call.state == .earlyMedia)

        try await incoming.answer()
        _ = try await aliceEvents.next("active") { $0 == .state(.active) }
        try await ReconnectionTests.expectAudioBothWays(call, incoming.call, "after a reliable 183")
        await call.hangup()
        _ = try await withTimeout(seconds: 5) { await incoming.call.waitUntilDone() }
        await alice.close()
        await bob.close()
    }
}
