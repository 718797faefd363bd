import SDP
import Testing

@Suite struct AnswerRuleTests {
    static let ice = ICEDescription(ufrag: "ufragAAAA", password: "passwordpasswordpassword")
    static let fingerprint = Fingerprint(hashFunction: "sha-256", value: "AA:BB")

    static func offer(direction: String = "sendrecv", setup: String = "actpass") -> String {
        """
        v=0\r
        o=- 7 2 IN IP4 127.0.0.1\r
        s=-\r
        t=0 0\r
        a=group:BUNDLE a v\r
        m=audio 9 UDP/TLS/RTP/SAVPF 96 0 101\r
        c=IN IP4 0.0.0.0\r
        a=mid:a\r
        a=\(direction)\r
        a=rtcp-mux\r
        a=fingerprint:sha-256 01:02\r
        a=setup:\(setup)\r
        a=rtpmap:96 opus/48000/2\r
        a=rtpmap:101 telephone-event/8000\r
        m=video 9 UDP/TLS/RTP/SAVPF 97\r
        a=mid:v\r
        a=rtpmap:97 VP8/90000\r

        """
    }

    func answer(_ text: String, direction: Direction = .sendrecv, order: CodecOrder = .offerer, roleForActpass: SetupRole = .active) throws -> Answer {
        let options = AnswerOptions(ice: Self.ice, security: .dtls(Self.fingerprint, roleForActpass: roleForActpass), direction: direction, codecOrder: order, sessionId: "1")
        return try SessionDescription.answer(to: SDPParser().parse(text), options: options)
    }

    @Test func keepsOfferersNumbersAndRejectsVideo() throws {
        let answer = try answer(Self.offer())
        let audio = answer.description.media[0]
        #expect(audio.formats == ["96", "0", "101"])
        #expect(audio.codecs.map(\.label) == ["opus/48000/2", "PCMU/8000", "telephone-event/8000"])
        #expect(answer.description.media[1].port == 0 && answer.description.media[1].formats == ["97"])
        #expect(answer.description.media[1].attributes.first(MediaID.self)?.tag == "v")
        #expect(answer.description.attributes.first(Group.self)?.mids == ["a"])
        #expect(audio.attributes.contains(RTCPMux.self))
        #expect(answer.audio.telephoneEvents.map(\.payloadType) == [101])
    }

    @Test func ourOrderPutsOurPreferenceFirst() throws {
        let offer = Self.offer().replacingOccurrences(of: "SAVPF 96 0 101", with: "SAVPF 0 96 101")
        #expect(try answer(offer).description.media[0].formats == ["0", "96", "101"])
        #expect(try answer(offer, order: .ours).description.media[0].formats == ["96", "0", "101"])
    }

    @Test(arguments: [
        ("sendrecv", Direction.sendrecv, Direction.sendrecv), ("sendonly", .sendrecv, .recvonly),
        ("recvonly", .sendrecv, .sendonly), ("inactive", .sendrecv, .inactive), ("sendrecv", .sendonly, .sendonly),
        ("sendonly", .sendonly, .inactive),
    ])
    func directionIsMirrored(offered: String, wanted: Direction, expected: Direction) throws {
        let answer = try answer(Self.offer(direction: offered), direction: wanted)
        #expect(answer.description.media[0].attributes.direction == expected)
        #expect(answer.audio.direction == expected)
    }

    @Test(arguments: [("actpass", SetupRole.active), ("active", .passive), ("passive", .active)])
    func dtlsRoleFollowsTheOffer(offered: String, expected: SetupRole) throws {
        let answer = try answer(Self.offer(setup: offered))
        #expect(answer.description.media[0].attributes.first(SetupRole.self) == expected)
        #expect(answer.audio.dtlsRole == expected)
    }

    @Test func actpassCanBeAnsweredPassive() throws {
        #expect(try answer(Self.offer(), roleForActpass: .passive).audio.dtlsRole == .passive)
    }

    @Test func noCommonCodecIsATypedError() {
        let offer = Self.offer().replacingOccurrences(of: "a=rtpmap:96 opus/48000/2", with: "a=rtpmap:96 G7221/16000")
            .replacingOccurrences(of: "SAVPF 96 0 101", with: "SAVPF 96 101")
        #expect(throws: NegotiationError.self) { try answer(offer) }
    }

    @Test func offerBuildsFromCapabilities() throws {
        let options = OfferOptions(ice: Self.ice, security: .dtls(Self.fingerprint), sessionId: "9", ssrc: 1234, cname: "parley")
        let offer = SessionDescription.audioOffer(options)
        let text = offer.text
        let reparsed = try SDPParser().parse(text)
        let audio = reparsed.media[0]
        #expect(audio.formats == ["111", "0", "8", "110", "126"])
        #expect(audio.codecs.map(\.label) == ["opus/48000/2", "PCMU/8000", "PCMA/8000", "telephone-event/48000", "telephone-event/8000"])
        #expect(audio.attributes.first(SetupRole.self) == .actpass)
        #expect(audio.attributes.first(ICEOptions.self)?.options == ["trickle"])
        #expect(audio.attributes.first(SSRCAttribute.self) == SSRCAttribute(ssrc: 1234, name: "cname", value: "parley"))
        #expect(reparsed.attributes.first(Group.self)?.mids == ["0"])

        // An answer to our own offer accepts every codec of ours.
        let answerOptions = AnswerOptions(ice: Self.ice, security: .dtls(Self.fingerprint), sessionId: "10")
        let answer = try SessionDescription.answer(to: reparsed, options: answerOptions)
        #expect(answer.description.media[0].formats == audio.formats)
    }

    @Test func vanillaOfferUsesTheFirstCandidateAsDefault() throws {
        let candidate = Candidate(foundation: "1", component: 1, transport: "udp", priority: 100, address: "192.0.2.7", port: 40000, type: "host")
        let ice = ICEDescription(ufrag: "ufragAAAA", password: "passwordpasswordpassword", trickle: false, candidates: [candidate], gatheringComplete: true)
        let offer = SessionDescription.audioOffer(OfferOptions(ice: ice, security: .dtls(Self.fingerprint), sessionId: "9"))
        #expect(offer.media[0].port == 40000)
        #expect(offer.media[0].connections == [Connection(address: "192.0.2.7")])
        #expect(offer.media[0].attributes.contains(EndOfCandidates.self))
        #expect(!offer.media[0].attributes.contains(named: "ice-options"))
    }

    @Test func redactionHidesIcePasswordAndKeys() throws {
        let options = OfferOptions(
            ice: Self.ice, security: .sdes([Crypto(tag: 1, suite: "AES_CM_128_HMAC_SHA1_80", keyParameters: "inline:SECRETKEYSECRETKEY")]), sessionId: "9")
        let text = SessionDescription.audioOffer(options).redacted().text
        #expect(!text.contains("SECRETKEY") && !text.contains("passwordpassword"))
        #expect(text.contains("a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:<redacted>"))
    }
}
