import Foundation
@testable import Parley
import Signaling
import TestSupport
import Testing

/// A delayed offer through the real Kamailio (docs/sip.md, "Delayed offer"): alice's INVITE
/// carries no SDP, bob's phone rings as for any call, his 200 carries the offer (WebRTC's, ICE
/// gathered first, DTLS-SRTP; or SDES without ICE, a trunk's profile) and alice's ACK the answer
/// in kind; each hears the other's tone.
@Suite(.serialized, .tags(.realPeer)) struct SIPDelayedOfferThroughKamailioTests {
    @Test(arguments: [MediaProfile.webrtc, .sdes])
    func aliceInvitesWithoutSDPBobOffersInTheTwoHundredAndTheyHearEachOther(bobsOffer: MediaProfile) async throws {
        let kamailio = try await KamailioRegistrar()
        defer { kamailio.stop() }
        let directory = try CallThroughSwitchTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let aliceRecording = directory.appendingPathComponent("alice.wav").path
        let bobRecording = directory.appendingPathComponent("bob.wav").path
        let alice = try await SIPCallThroughKamailioTests.phone("alice", at: kamailio, play: "tone:440", record: aliceRecording)
        let bob = try await SIPCallThroughKamailioTests.phone("bob", at: kamailio, play: "tone:880", record: bobRecording)

        var options = DialOptions()
        options.delayedOffer = true
        let (call, incoming) = try await SIPCallThroughKamailioTests.dialAndOffer(alice, bob, options: options)
        #expect(!incoming.carriesOffer)
        let aliceEvents = EventRecorder(call.events)
        let bobEvents = EventRecorder(incoming.call.events)
        var bobsMedia = try SIPCallThroughKamailioTests.media(play: "tone:880", record: bobRecording)
        bobsMedia.mediaProfile = bobsOffer
        try await incoming.answer(media: bobsMedia)
        #expect(await incoming.call.state == .active)
        _ = try await aliceEvents.next("active") { $0 == .state(.active) }
        _ = try await bobEvents.next("secured") { if case .secured = $0 { true } else { false } }
        try await ReconnectionTests.expectAudioBothWays(call, incoming.call, "after a delayed offer")
        // Alice answered in kind: over ICE for the WebRTC offer, on the offer's address for SDES.
        #expect((await call.statistics().candidatePair != nil) == (bobsOffer == .webrtc))

        await call.hangup()
        let ended = try await bobEvents.next("bob hears the BYE") { if case .state(.done) = $0 { true } else { false } }
        #expect(try #require(ended.endReason).cause == "NORMAL_CLEARING")
        await alice.close()
        await bob.close()

        let aliceHeard = try #require(try Recording.firstToneFrequency(aliceRecording))
        let bobHeard = try #require(try Recording.firstToneFrequency(bobRecording))
        #expect(abs(aliceHeard - 880) <= 5, "alice heard \(aliceHeard) Hz")
        #expect(abs(bobHeard - 440) <= 5, "bob heard \(bobHeard) Hz")
    }
}
