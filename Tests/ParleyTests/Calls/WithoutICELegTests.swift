import Foundation
import Media
import Parley
import TestSupport
import Testing

/// Two real media legs on loopback without ICE, as a classic SIP peer and Parley would talk
/// (docs/sip.md, "Media per peer"): plain RTP/AVP with G.711, SDES with Opus, RTCP on its own
/// port when the answer has no rtcp-mux, and the refusals (an unencrypted offer without
/// `--media plain`, an SDES offer's answer without keys).
@Suite(.leakChecked, .serialized) struct WithoutICELegTests {
    static func options(_ profile: MediaProfile, codec: String) -> MediaOptions {
        var options = InteropMedia.options(interface: "lo", codec: codec, tone: 440, record: nil)
        options.mediaProfile = profile
        return options
    }

    @Test func plainRTPFlowsBothWaysWithPCMU() async throws {
        let caller = try MediaLeg(role: .controlling, options: Self.options(.plain, codec: "pcmu"), logger: InteropMedia.logger, withoutICE: true)
        let callee = try MediaLeg(role: .controlled, options: Self.options(.plain, codec: "pcmu"), logger: InteropMedia.logger, withoutICE: true)
        afterTest { await caller.stop(); await callee.stop() }
        let callerEvents = EventRecorder(caller.events)

        let offer = try await caller.makeOffer()
        #expect(offer.contains("m=audio ") && offer.contains(" RTP/AVP 0 126\r\n"))
        #expect(offer.contains("c=IN IP4 127.0.0.1\r\n"))
        #expect(!offer.contains("a=ice-ufrag") && !offer.contains("a=fingerprint") && !offer.contains("a=group:BUNDLE"))
        let answer = try await callee.answer(offer, peerTrickles: false)
        #expect(answer.contains(" RTP/AVP 0 126\r\n") && !answer.contains("a=crypto") && !answer.contains("a=ice-"))
        try await caller.applyAnswer(answer)
        _ = try await callerEvents.next("the caller's path without ICE") { $0 == .pathReady }
        _ = try await callerEvents.next("the caller's media unencrypted") { $0 == .unencrypted }

        try await waitUntil("the callee's audio at the caller") { (await caller.statistics().audio?.packetsReceived ?? 0) >= 25 }
        try await waitUntil("the caller's audio at the callee") { (await callee.statistics().audio?.packetsReceived ?? 0) >= 25 }
        #expect(await caller.statistics().audio?.codec == "PCMU")
        try await caller.sendDTMF("5")
        _ = try await EventRecorder(callee.events).next("the caller's digit as an RFC 4733 event") { $0 == .dtmf("5", inBand: false) }
    }

    @Test func sdesFlowsWithOpusAndRTCPOnItsOwnPort() async throws {
        let caller = try MediaLeg(role: .controlling, options: Self.options(.sdes, codec: "opus"), logger: InteropMedia.logger, withoutICE: true)
        let callee = try MediaLeg(role: .controlled, options: Self.options(.webrtc, codec: "opus"), logger: InteropMedia.logger, withoutICE: true)
        afterTest { await caller.stop(); await callee.stop() }
        let callerEvents = EventRecorder(caller.events)

        // Without rtcp-mux in the offer, the answer has none and RTCP goes to the next port.
        let offer = try await caller.makeOffer().replacingOccurrences(of: "a=rtcp-mux\r\n", with: "")
        #expect(offer.contains(" RTP/SAVP 111 110\r\n"))
        #expect(offer.contains("a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:") && offer.contains("a=crypto:2 AES_CM_128_HMAC_SHA1_32 inline:"))
        let answer = try await callee.answer(offer, peerTrickles: false)
        #expect(answer.contains("a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:") && !answer.contains("a=crypto:2"))
        #expect(!answer.contains("a=rtcp-mux"))
        try await caller.applyAnswer(answer)
        let secured = try await callerEvents.next("the caller's SRTP keys") { if case .secured = $0 { true } else { false } }
        #expect(secured == .secured(.aes128CMHMACSHA1_80))

        try await waitUntil("the callee's audio at the caller") { (await caller.statistics().audio?.packetsReceived ?? 0) >= 25 }
        try await waitUntil("the caller's audio at the callee") { (await callee.statistics().audio?.packetsReceived ?? 0) >= 25 }
        // RTCP went over the separate ports: each side learned a round-trip time from the other's reports.
        try await waitUntil("an RTCP round trip at the caller", within: 12) { await caller.statistics().audio?.rttMs != nil }
        #expect(await caller.statistics().audio?.srtpAuthenticationFailures == 0)
    }

    /// baresip has telephone-event only at 8000 Hz, beside Opus: keys go both ways on it.
    @Test func keysGoBothWaysOnTelephoneEventAt8000BesideOpus() async throws {
        let standard = AudioCapabilities.standard.codecs
        var options = Self.options(.plain, codec: "opus")
        options.capabilities = AudioCapabilities(codecs: standard.filter { $0.name == "opus" || ($0.isTelephoneEvent && $0.clockRate == 8000) })
        let caller = try MediaLeg(role: .controlling, options: options, logger: InteropMedia.logger, withoutICE: true)
        let callee = try MediaLeg(role: .controlled, options: Self.options(.plain, codec: "any"), logger: InteropMedia.logger, withoutICE: true)
        afterTest { await caller.stop(); await callee.stop() }
        let callerEvents = EventRecorder(caller.events)
        let calleeEvents = EventRecorder(callee.events)

        let offer = try await caller.makeOffer()
        #expect(offer.contains(" RTP/AVP 111 126\r\n") && offer.contains("a=rtpmap:126 telephone-event/8000\r\n"))
        let answer = try await callee.answer(offer, peerTrickles: false)
        #expect(answer.contains(" RTP/AVP 111 126\r\n"))
        try await caller.applyAnswer(answer)
        try await waitUntil("the callee's audio at the caller") { (await caller.statistics().audio?.packetsReceived ?? 0) >= 10 }
        try await waitUntil("the caller's audio at the callee") { (await callee.statistics().audio?.packetsReceived ?? 0) >= 10 }
        try await caller.sendDTMF("7")
        _ = try await calleeEvents.next("the caller's key on telephone-event/8000") { $0 == .dtmf("7", inBand: false) }
        try await callee.sendDTMF("#")
        _ = try await callerEvents.next("the callee's key on telephone-event/8000") { $0 == .dtmf("#", inBand: false) }
    }

    /// A peer's re-offer from a new port (a third leg stands for the moved peer): Parley's media
    /// goes there and latches again, and a repeat of it, or an old-style hold to 0.0.0.0, moves
    /// nothing.
    @Test func aReofferToANewPortMovesOurMediaThere() async throws {
        let parley = try MediaLeg(role: .controlling, options: Self.options(.plain, codec: "pcmu"), logger: InteropMedia.logger, withoutICE: true)
        let peer = try MediaLeg(role: .controlled, options: Self.options(.plain, codec: "pcmu"), logger: InteropMedia.logger, withoutICE: true)
        let movedPeer = try MediaLeg(role: .controlled, options: Self.options(.plain, codec: "pcmu"), logger: InteropMedia.logger, withoutICE: true)
        afterTest { await parley.stop(); await peer.stop(); await movedPeer.stop() }
        let parleyDescription = try await parley.makeOffer()
        try await parley.applyAnswer(try await peer.answer(parleyDescription, peerTrickles: false))
        try await waitUntil("the peer's audio at Parley") { (await parley.statistics().audio?.packetsReceived ?? 0) >= 10 }
        await peer.stop()

        let reoffer = try await movedPeer.makeOffer()
        #expect(try await parley.followPeer(reoffer: reoffer))
        #expect(try await parley.followPeer(reoffer: reoffer) == false)
        let held = reoffer.replacingOccurrences(of: "c=IN IP4 127.0.0.1", with: "c=IN IP4 0.0.0.0")
        #expect(try await parley.followPeer(reoffer: held) == false)
        // Parley's refresh answer repeats its description: the moved peer aims at it.
        try await movedPeer.applyAnswer(parleyDescription)
        try await waitUntil("Parley's audio at the peer's new port") { (await movedPeer.statistics().audio?.packetsReceived ?? 0) >= 25 }
        let before = await parley.statistics().audio?.packetsReceived ?? 0
        try await waitUntil("the moved peer's audio at Parley") { (await parley.statistics().audio?.packetsReceived ?? 0) >= before + 25 }
    }

    @Test func anUnencryptedOfferIsRefusedWithoutMediaPlain() async throws {
        let caller = try MediaLeg(role: .controlling, options: Self.options(.plain, codec: "pcmu"), logger: InteropMedia.logger, withoutICE: true)
        let callee = try MediaLeg(role: .controlled, options: Self.options(.sdes, codec: "pcmu"), logger: InteropMedia.logger, withoutICE: true)
        afterTest { await caller.stop(); await callee.stop() }
        let offer = try await caller.makeOffer()
        let error = await #expect(throws: ParleyError.self) { _ = try await callee.answer(offer, peerTrickles: false) }
        #expect(error?.kind == .negotiation)
        #expect(error?.message.contains("--media plain") == true)
    }

    @Test func anAnswerWithoutKeysToAnSDESOfferIsRefused() async throws {
        let caller = try MediaLeg(role: .controlling, options: Self.options(.sdes, codec: "pcmu"), logger: InteropMedia.logger, withoutICE: true)
        afterTest { await caller.stop() }
        let offer = try await caller.makeOffer()
        let plainAnswer = offer.split(separator: "\r\n").filter { !$0.hasPrefix("a=crypto") }.joined(separator: "\r\n")
            .replacingOccurrences(of: "RTP/SAVP", with: "RTP/AVP") + "\r\n"
        let error = await #expect(throws: ParleyError.self) { try await caller.applyAnswer(plainAnswer) }
        #expect(error?.message.contains("refused SRTP") == true)
    }
}
