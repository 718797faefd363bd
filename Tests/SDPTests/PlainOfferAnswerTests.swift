import SDP
import Testing

/// Offers and answers without ICE, for classic SIP peers (docs/sip.md, "Media per peer"): the
/// shapes a desk phone or baresip without ICE sends and expects.
@Suite struct PlainOfferAnswerTests {
    static let unusedICE = ICEDescription(ufrag: "unused", password: "unusedunusedunusedunused")
    static let ours = PlainTransport(address: "192.0.2.10", port: 40000)

    /// baresip's offer with `mediaenc` unset and only g711 loaded: RTP/AVP, RTCP at the next
    /// port, telephone-event at 8000.
    static let plainOffer = """
        v=0\r
        o=- 1 2 IN IP4 192.0.2.20\r
        s=-\r
        c=IN IP4 192.0.2.20\r
        t=0 0\r
        m=audio 10000 RTP/AVP 0 8 101\r
        a=rtpmap:0 PCMU/8000\r
        a=rtpmap:8 PCMA/8000\r
        a=rtpmap:101 telephone-event/8000\r
        a=fmtp:101 0-15\r
        a=rtcp:10003\r
        a=sendrecv\r

        """

    static let sdesOffer = """
        v=0\r
        o=- 1 2 IN IP4 192.0.2.20\r
        s=-\r
        t=0 0\r
        m=audio 10000 RTP/SAVP 0 101\r
        c=IN IP4 192.0.2.21\r
        a=rtpmap:0 PCMU/8000\r
        a=rtpmap:101 telephone-event/8000\r
        a=crypto:7 AES_CM_128_HMAC_SHA1_32 inline:MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkw\r
        a=crypto:8 AES_CM_128_HMAC_SHA1_80 inline:MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkw\r
        a=rtcp-mux\r

        """

    static func answerOptions(allowUnencrypted: Bool) -> AnswerOptions {
        AnswerOptions(
            ice: unusedICE, security: .sdes(keys: ["AES_CM_128_HMAC_SHA1_80": "inline:OURKEY", "AES_CM_128_HMAC_SHA1_32": "inline:OURKEY32"],
                                            suites: ["AES_CM_128_HMAC_SHA1_80", "AES_CM_128_HMAC_SHA1_32"]),
            sessionId: "5", allowUnencrypted: allowUnencrypted, plainTransport: ours)
    }

    @Test func aPlainOfferHasNoICENoBundleAndOurSocket() throws {
        let offer = SessionDescription.audioOffer(OfferOptions(ice: Self.unusedICE, security: .none, sessionId: "5", plainTransport: Self.ours))
        let text = offer.text
        let audio = try #require(offer.media.first)
        #expect(audio.proto == "RTP/AVP")
        #expect(audio.port == 40000)
        #expect(audio.connections == [Connection(address: "192.0.2.10")])
        for absent in ["a=ice-ufrag", "a=ice-pwd", "a=candidate", "a=fingerprint", "a=setup", "a=group", "a=mid", "a=end-of-candidates"] {
            #expect(!text.contains(absent), "\(absent) in a plain offer")
        }
        #expect(text.contains("a=rtcp-mux\r\n"))
        #expect(text.contains("a=rtpmap:0 PCMU/8000\r\n") && text.contains("a=rtpmap:126 telephone-event/8000\r\n"))
        // What it says is read back by the far end's side of the same code.
        let remote = try #require(PlainRemoteTransport(try SDPParser().parse(text).media[0], session: offer))
        #expect(remote.address == "192.0.2.10" && remote.rtpPort == 40000 && remote.rtcpPort == 40001 && remote.rtcpMux)
        #expect(offer.isWithoutICE)
    }

    @Test func anSDESOfferCarriesEachCryptoLine() {
        let cryptos = [Crypto(tag: 1, suite: "AES_CM_128_HMAC_SHA1_80", keyParameters: "inline:KEY1"), Crypto(tag: 2, suite: "AES_CM_128_HMAC_SHA1_32", keyParameters: "inline:KEY2")]
        let text = SessionDescription.audioOffer(OfferOptions(ice: Self.unusedICE, security: .sdes(cryptos), sessionId: "5", plainTransport: Self.ours)).text
        #expect(text.contains(" RTP/SAVP "))
        #expect(text.contains("a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:KEY1\r\n") && text.contains("a=crypto:2 AES_CM_128_HMAC_SHA1_32 inline:KEY2\r\n"))
        #expect(!text.contains("a=ice-ufrag"))
    }

    @Test func aPlainOfferIsAnsweredInKindWhenAllowed() throws {
        let offer = try SDPParser().parse(Self.plainOffer)
        #expect(offer.isWithoutICE)
        let answer = try SessionDescription.answer(to: offer, options: Self.answerOptions(allowUnencrypted: true))
        let audio = try #require(answer.description.media.first)
        #expect(audio.proto == "RTP/AVP" && audio.port == 40000)
        #expect(audio.connections == [Connection(address: "192.0.2.10")])
        #expect(audio.formats == ["0", "8", "101"])
        let text = answer.description.text
        for absent in ["a=crypto", "a=ice-", "a=rtcp-mux", "a=group"] { #expect(!text.contains(absent), "\(absent) in the answer") }
        #expect(answer.audio.acceptedCrypto == nil)
        // The offerer's RTCP port (a=rtcp, RFC 3605) and its session-level address.
        let remote = try #require(PlainRemoteTransport(offer.media[0], session: offer))
        #expect(remote.address == "192.0.2.20" && remote.rtpPort == 10000 && remote.rtcpPort == 10003 && !remote.rtcpMux)
    }

    @Test func aPlainOfferIsRefusedUnlessAllowed() throws {
        let offer = try SDPParser().parse(Self.plainOffer)
        let error = #expect(throws: NegotiationError.self) { try SessionDescription.answer(to: offer, options: Self.answerOptions(allowUnencrypted: false)) }
        #expect(error?.description.contains("unencrypted RTP") == true)
    }

    @Test func anSDESOfferIsAnsweredWithOneKeyOfTheOfferersFirstSuite() throws {
        let offer = try SDPParser().parse(Self.sdesOffer)
        let answer = try SessionDescription.answer(to: offer, options: Self.answerOptions(allowUnencrypted: false))
        let audio = try #require(answer.description.media.first)
        #expect(audio.proto == "RTP/SAVP")
        #expect(audio.attributes.values(Crypto.self) == [Crypto(tag: 7, suite: "AES_CM_128_HMAC_SHA1_32", keyParameters: "inline:OURKEY32")])
        #expect(answer.audio.acceptedCrypto?.tag == 7)
        #expect(answer.description.text.contains("a=rtcp-mux\r\n"))
        let remote = try #require(PlainRemoteTransport(offer.media[0], session: offer))
        #expect(remote.address == "192.0.2.21" && remote.rtcpMux)
    }

    @Test func aDescriptionWithICEIsNotWithoutICE() throws {
        let offer = SessionDescription.audioOffer(OfferOptions(ice: Self.unusedICE, security: .none, sessionId: "5"))
        #expect(!offer.isWithoutICE)
        #expect(offer.text.contains("a=ice-ufrag:unused"))
    }

    @Test func aSectionWithoutAnAddressHasNoTransport() throws {
        let text = Self.plainOffer.replacingOccurrences(of: "c=IN IP4 192.0.2.20\r\n", with: "")
        let offer = try SDPParser().parse(text)
        #expect(PlainRemoteTransport(offer.media[0], session: offer) == nil)
    }
}
