import Foundation
import Media
@testable import Parley
import SDP
import TestSupport
import Testing

/// Two real SDES media legs on loopback without ICE (docs/sip.md, "Media per peer"): a peer's
/// re-offer with a new key (RFC 4568 §7.1.4) re-keys what we receive and is answered with our
/// one `a=crypto` under the accepted tag; a new suite gets a new key of ours; a re-offer that
/// repeats the keys changes nothing; one that drops SRTP is refused.
@Suite(.leakChecked, .serialized) struct SDESRekeyLegTests {
    private static func cryptos(_ sdp: String) -> [Crypto] {
        sdp.components(separatedBy: "\r\n").filter { $0.hasPrefix("a=crypto:") }.compactMap { try? Crypto(attributeValue: String($0.dropFirst(9))) }
    }

    private static func freshKey() -> [UInt8] { (0..<30).map { _ in UInt8.random(in: 0...255) } }

    /// `sdp` with its crypto lines replaced by `lines`.
    private static func withCryptos(_ sdp: String, _ lines: [Crypto]) -> String {
        var kept = sdp.components(separatedBy: "\r\n").filter { !$0.hasPrefix("a=crypto:") && !$0.isEmpty }
        let at = kept.firstIndex { $0.hasPrefix("a=rtpmap:") } ?? kept.endIndex
        kept.insert(contentsOf: lines.map { "a=crypto:" + ($0.attributeValue ?? "") }, at: at)
        return kept.joined(separator: "\r\n") + "\r\n"
    }

    private func call() async throws -> (caller: MediaLeg, callee: MediaLeg, offer: String, answer: String) {
        let caller = try MediaLeg(role: .controlling, options: WithoutICELegTests.options(.sdes, codec: "pcmu"), logger: InteropMedia.logger, withoutICE: true)
        let callee = try MediaLeg(role: .controlled, options: WithoutICELegTests.options(.sdes, codec: "pcmu"), logger: InteropMedia.logger, withoutICE: true)
        afterTest { await caller.stop(); await callee.stop() }
        let offer = try await caller.makeOffer()
        let answer = try await callee.answer(offer, peerTrickles: false)
        try await caller.applyAnswer(answer)
        try await waitUntil("the callee's audio at the caller") { (await caller.statistics().audio?.packetsReceived ?? 0) >= 25 }
        try await waitUntil("the caller's audio at the callee") { (await callee.statistics().audio?.packetsReceived ?? 0) >= 25 }
        return (caller, callee, offer, answer)
    }

    private func received(_ leg: MediaLeg) async -> Int { await leg.statistics().audio?.packetsReceived ?? 0 }

    @Test func aNewKeyOfTheSameSuiteReKeysWhatWeReceiveAndOursStays() async throws {
        let (caller, callee, offer, answer) = try await call()
        let ours = try #require(Self.cryptos(answer).first)
        let newKey = Self.freshKey()
        // The caller re-offers tag 1 with a new key (the tag-2 line as before).
        var offered = Self.cryptos(offer)
        offered[0].keyParameters = "inline:" + Data(newKey).base64EncodedString()
        let reanswer = try await callee.answerKeys(reoffer: Self.withCryptos(offer, offered), answer: answer)
        #expect(Self.cryptos(reanswer) == [ours], "one a=crypto, ours as it was, under the accepted tag")
        // The caller sends with its new key once it has the answer.
        let material = SRTPKeyingMaterial(profile: .aes128CMHMACSHA1_80, localMasterKey: newKey,
                                          remoteMasterKey: try #require(SDESKeys.masterKey(of: ours, profile: .aes128CMHMACSHA1_80)))
        try #require(await caller.session).rekey(material, local: true)
        let before = await received(callee)
        try await waitUntil("the caller's audio under its new key at the callee") { await received(callee) >= before + 50 }
        #expect(await callee.statistics().audio?.srtpAuthenticationFailures == 0)
    }

    @Test func aNewSuiteGetsANewKeyOfOursAndAudioGoesOnBothWays() async throws {
        let (caller, callee, offer, answer) = try await call()
        let before = try #require(Self.cryptos(answer).first)
        let newKey = Self.freshKey()
        let offered = [Crypto(tag: 7, suite: "AES_CM_128_HMAC_SHA1_32", keyParameters: "inline:" + Data(newKey).base64EncodedString())]
        let reanswer = try await callee.answerKeys(reoffer: Self.withCryptos(offer, offered), answer: answer)
        let ours = try #require(Self.cryptos(reanswer).first)
        #expect(Self.cryptos(reanswer).count == 1)
        #expect(ours.tag == 7 && ours.suite == "AES_CM_128_HMAC_SHA1_32" && ours.keyParameters != before.keyParameters)
        let material = SRTPKeyingMaterial(profile: .aes128CMHMACSHA1_32, localMasterKey: newKey,
                                          remoteMasterKey: try #require(SDESKeys.masterKey(of: ours, profile: .aes128CMHMACSHA1_32)))
        try #require(await caller.session).rekey(material, local: true)
        let (atCaller, atCallee) = (await received(caller), await received(callee))
        try await waitUntil("the callee's audio under its new key at the caller") { await received(caller) >= atCaller + 50 }
        try await waitUntil("the caller's audio under its new key at the callee") { await received(callee) >= atCallee + 50 }
        #expect(await caller.statistics().audio?.srtpProfile == "AES_CM_128_HMAC_SHA1_32")
    }

    /// We offered two suites; the peer's re-offer repeats the one it chose: our answer to it has
    /// our one key of that suite, and nothing is re-keyed.
    @Test func aReofferThatRepeatsTheKeysIsAnsweredWithOurOneCrypto() async throws {
        let (caller, _, offer, answer) = try await call()
        let reanswer = try await caller.answerKeys(reoffer: answer, answer: offer)
        #expect(Self.cryptos(reanswer) == [try #require(Self.cryptos(offer).first)])
        let before = await received(caller)
        try await waitUntil("the callee's audio at the caller") { await received(caller) >= before + 25 }
        #expect(await caller.statistics().audio?.srtpAuthenticationFailures == 0)
    }

    /// Our hold's re-offer carries our one key in use; the peer's answer to it with a new key of
    /// its own re-keys what we receive; an answer naming another crypto changes nothing.
    @Test func ourReofferRepeatsOurKeyAndAnAnswerWithANewKeyIsFollowed() async throws {
        let (caller, callee, offer, answer) = try await call()
        let ours = try #require(Self.cryptos(offer).first)
        let reoffer = await caller.reofferKeys(offer)
        #expect(Self.cryptos(reoffer) == [ours])
        var theirs = try #require(Self.cryptos(answer).first)
        var wrongTag = theirs
        wrongTag.tag = 2
        await #expect(throws: ParleyError.self) { try await caller.takeAnsweredKeys(Self.withCryptos(answer, [wrongTag])) }
        let newKey = Self.freshKey()
        theirs.keyParameters = "inline:" + Data(newKey).base64EncodedString()
        try await caller.takeAnsweredKeys(Self.withCryptos(answer, [theirs]))
        let material = SRTPKeyingMaterial(profile: .aes128CMHMACSHA1_80, localMasterKey: newKey,
                                          remoteMasterKey: try #require(SDESKeys.masterKey(of: ours, profile: .aes128CMHMACSHA1_80)))
        try #require(await callee.session).rekey(material, local: true)
        let before = await received(caller)
        try await waitUntil("the callee's audio under its new key at the caller") { await received(caller) >= before + 50 }
        #expect(await caller.statistics().audio?.srtpAuthenticationFailures == 0)
    }

    @Test func aReofferWithoutSRTPOrWithASuiteWeLackIsRefused() async throws {
        let (_, callee, offer, answer) = try await call()
        await #expect(throws: ParleyError.self) { try await callee.answerKeys(reoffer: Self.withCryptos(offer, []), answer: answer) }
        let unknown = [Crypto(tag: 1, suite: "F8_128_HMAC_SHA1_80", keyParameters: "inline:" + Data(Self.freshKey()).base64EncodedString())]
        await #expect(throws: ParleyError.self) { try await callee.answerKeys(reoffer: Self.withCryptos(offer, unknown), answer: answer) }
        // Refused, the keys stay: the caller's audio still arrives.
        let before = await received(callee)
        try await waitUntil("the caller's audio at the callee") { await received(callee) >= before + 25 }
    }
}
