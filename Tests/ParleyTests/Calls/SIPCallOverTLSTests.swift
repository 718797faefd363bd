import Foundation
@testable import Parley
import TestSupport
import Testing

/// Two Parley phones registered at the real Kamailio over SIP's own TLS (`sips:`, docs/sip.md
/// "Transports"), verified with a throwaway CA: alice's INVITE reaches bob over bob's TLS flow,
/// the call is answered and secured, and alice's BYE ends it on both sides.
@Suite(.serialized, .tags(.realPeer)) struct SIPCallOverTLSTests {
    @Test func aliceCallsBobOverTLSAndByeEndsItOnBothSides() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let kamailio = try await KamailioRegistrar(tlsCertificate: (certificates.serverCertificatePath, certificates.serverKeyPath))
        defer { kamailio.stop() }
        let server = "sips:127.0.0.1:\(try #require(kamailio.tlsPort))"
        let media = try SIPCallThroughKamailioTests.media(play: "silence", record: "null")
        let trust = TLSVerification.customCA(path: certificates.caPath)
        let alice = try await SIPPhone.register(server: server, user: "alice", domain: "parley.test", password: "alice-secret", media: media, tls: trust, expiry: 120)
        let bob = try await SIPPhone.register(server: server, user: "bob", domain: "parley.test", password: "bob-secret", media: media, tls: trust, expiry: 120)

        let (call, incoming) = try await SIPCallThroughKamailioTests.dialAndOffer(alice, bob)
        let aliceEvents = EventRecorder(call.events)
        let bobEvents = EventRecorder(incoming.call.events)
        try await incoming.answer()
        _ = try await aliceEvents.next("active") { $0 == .state(.active) }
        _ = try await bobEvents.next("secured") { if case .secured = $0 { true } else { false } }
        await call.hangup()
        let ended = try await bobEvents.next("bob hears the BYE") { if case .state(.done) = $0 { true } else { false } }
        #expect(try #require(ended.endReason).cause == "NORMAL_CLEARING")
        await alice.close()
        await bob.close()
    }
}
