import Foundation
@testable import Parley
import TestSupport
import Testing

/// A phone on WebSocket (RFC 7118), as a browser is, puts a `.invalid` host in the Contact of its
/// 200; the caller's ACK and BYE reach it only because Kamailio aliases that Contact to the
/// connection it came on (deploy/kamailio/kamailio.cfg, `onreply_route`). Bob answers over
/// ws://, alice calls over UDP.
@Suite(.serialized, .tags(.realPeer)) struct SIPWebSocketCallThroughKamailioTests {
    @Test func bobAnsweringOverWebSocketGetsTheACKAndTheBYE() async throws {
        let kamailio = try await KamailioRegistrar()
        defer { kamailio.stop() }
        let alice = try await SIPCallThroughKamailioTests.phone("alice", at: kamailio)
        let bob = try await SIPPhone.register(server: "ws://127.0.0.1:\(kamailio.port)/", user: "bob", domain: "parley.test", password: "bob-secret",
                                              media: try SIPCallThroughKamailioTests.media(play: "silence", record: "null"), expiry: 120)
        let (call, incoming) = try await SIPCallThroughKamailioTests.dialAndOffer(alice, bob)
        let bobEvents = EventRecorder(incoming.call.events)
        // answer() returns once the ACK arrived; without it, only after Timer H (32 s), and failing.
        let acknowledged = try await withTimeout(seconds: 10) { () async -> Bool in
            do {
                try await incoming.answer()
                return true
            } catch {
                return false
            }
        }
        #expect(acknowledged)
        await call.hangup()
        let ended = try await bobEvents.next("bob hears the BYE over WebSocket") { if case .state(.done) = $0 { true } else { false } }
        #expect(try #require(ended.endReason).cause == "NORMAL_CLEARING")
        await alice.close()
        await bob.close()
    }
}
