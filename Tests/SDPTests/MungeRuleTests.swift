import SDP
import Testing

/// The munging rules, each on a small description built for it.
@Suite struct MungeRuleTests {
    static let base = """
        v=0\r
        o=- 1 2 IN IP4 127.0.0.1\r
        s=-\r
        t=0 0\r
        m=audio 9 UDP/TLS/RTP/SAVPF 111 63 105 0 126\r
        a=rtpmap:111 opus/48000/2\r
        a=rtcp-fb:111 transport-cc\r
        a=fmtp:111 minptime=10;useinbandfec=1\r
        a=rtpmap:63 red/48000/2\r
        a=fmtp:63 111/111\r
        a=rtpmap:105 CN/16000\r
        a=rtpmap:126 telephone-event/8000\r
        m=video 9 UDP/TLS/RTP/SAVPF 96 97 111\r
        a=rtpmap:96 VP8/90000\r
        a=rtpmap:97 rtx/90000\r
        a=fmtp:97 apt=96\r
        a=rtpmap:111 H264/90000\r

        """

    @Test func movingOpusOntoCNSwapsTheirNumbers() throws {
        var sdp = try SDPParser().parse(Self.base)
        let warnings = try sdp.replacePayloadType(of: CodecSelector(parsing: "opus/48000/2"), with: 105)
        let audio = sdp.media[0]
        #expect(audio.formats == ["105", "63", "111", "0", "126"])
        #expect(audio.codecs.first { $0.name == "opus" }?.payloadType == 105)
        #expect(audio.codecs.first { $0.name == "CN" }?.payloadType == 111)
        #expect(audio.attributes.values(RTCPFeedback.self).map(\.format) == ["105"])
        #expect(audio.attributes.first(FormatParameters.self)?.format == "105")
        // red carries opus: its payload list follows.
        #expect(audio.attributes.values(FormatParameters.self).first { $0.format == "63" }?.parameters == "105/105")
        // The same number in another m-line is not touched.
        #expect(sdp.media[1].formats == ["96", "97", "111"])
        #expect(warnings.map(\.message) == ["m-line 1 (audio): CN/16000 held 105 and now has 111"])
    }

    @Test func rtxFollowsItsCodec() throws {
        var sdp = try SDPParser().parse(Self.base)
        try sdp.replacePayloadType(of: CodecSelector(parsing: "VP8"), with: 100)
        #expect(sdp.media[1].attributes.values(FormatParameters.self).map(\.parameters) == ["apt=100"])
    }

    @Test func dynamicCodecOutsideDynamicRangeWarns() throws {
        var sdp = try SDPParser().parse(Self.base)
        let warnings = try sdp.replacePayloadType(of: CodecSelector(parsing: "opus"), with: 50)
        #expect(warnings.contains { $0.message.contains("outside the dynamic range 96-127") })
        #expect(sdp.media[0].formats.first == "50")
    }

    @Test func payloadTypeOutOfRangeIsAnError() throws {
        var sdp = try SDPParser().parse(Self.base)
        #expect(throws: MungeError.self) { try sdp.replacePayloadType(of: CodecSelector(parsing: "opus"), with: 128) }
        #expect(sdp == (try SDPParser().parse(Self.base)))
    }

    @Test func droppingACodecDropsItsCompanions() throws {
        var sdp = try SDPParser().parse(Self.base)
        let warnings = sdp.keepCodecs([try CodecSelector(parsing: "PCMU"), try CodecSelector(parsing: "telephone-event"), try CodecSelector(parsing: "red"), try CodecSelector(parsing: "H264")])
        // red carries opus, which is gone, so red goes too.
        #expect(sdp.media[0].formats == ["0", "126"])
        #expect(!sdp.media[0].attributes.contains { $0.value?.hasPrefix("111 ") == true || $0.value?.hasPrefix("63 ") == true })
        // VP8 dropped takes its rtx with it.
        #expect(sdp.media[1].formats == ["111"])
        #expect(sdp.media[1].attributes.map(\.value) == ["111 H264/90000"])
        #expect(warnings.isEmpty)
    }

    @Test func bandwidthIsSetOnlyForTheGivenKind() throws {
        var sdp = try SDPParser().parse(Self.base)
        try sdp.setReceiveBandwidth(kbps: 64, for: "audio")
        #expect(sdp.media[0].bandwidths.map { "\($0.type):\($0.valueText)" } == ["AS:64", "TIAS:64000"])
        #expect(sdp.media[1].bandwidths.isEmpty)
        #expect(sdp.text.contains("m=audio 9 UDP/TLS/RTP/SAVPF 111 63 105 0 126\r\nb=AS:64\r\nb=TIAS:64000\r\na=rtpmap:111"))
    }

    @Test func presetsCarryTheirValues() throws {
        let (webrtc, _) = try OpusParameters.resolve(preset: .webrtc, overrides: [])
        #expect(webrtc == OpusParameters(maxPlaybackRate: 24000, maxAverageBitrate: 40000, useDTX: false, useInbandFEC: true, ptime: 20))
        let (preferred, _) = try OpusParameters.resolve(preset: .preferred, overrides: [])
        #expect(preferred == OpusParameters(maxPlaybackRate: 16000, maxAverageBitrate: 20000, useDTX: true, useInbandFEC: true, ptime: 60))
    }

    @Test(arguments: [
        ("maxplaybackrate", "7999"), ("maxplaybackrate", "48001"), ("maxaveragebitrate", "5999"),
        ("maxaveragebitrate", "510001"), ("ptime", "7"), ("ptime", "122.5"), ("ptime", "0"), ("usedtx", "2"),
    ])
    func outOfRangeValuesFallBackToThePreset(key: String, value: String) throws {
        let (parameters, warnings) = try OpusParameters.resolve(preset: .webrtc, overrides: [(key, value)])
        #expect(parameters == OpusParameters.Preset.webrtc.parameters)
        #expect(warnings.count == 1)
    }

    @Test(arguments: [("maxplaybackrate", "8000"), ("maxaveragebitrate", "510000"), ("ptime", "2.5"), ("ptime", "120")])
    func boundaryValuesAreAccepted(key: String, value: String) throws {
        let (_, warnings) = try OpusParameters.resolve(preset: .webrtc, overrides: [(key, value)])
        #expect(warnings.isEmpty)
    }

    @Test func unknownOpusKeyIsAnError() {
        #expect(throws: MungeError.self) { try OpusParameters.resolve(preset: nil, overrides: [("stero", "1")]) }
    }

    @Test func opusFmtpKeepsItsOrderAndGainsMissingKeys() throws {
        var sdp = try SDPParser().parse(Self.base)
        sdp.applyOpusParameters(OpusParameters.Preset.preferred.parameters)
        let fmtp = sdp.media[0].attributes.values(FormatParameters.self).first { $0.format == "111" }
        #expect(fmtp?.parameters == "minptime=10;useinbandfec=1;maxplaybackrate=16000;maxaveragebitrate=20000;usedtx=1")
        #expect(sdp.media[0].attributes.first(PTime.self)?.milliseconds == 60)
        #expect(sdp.media[1].attributes.first(PTime.self) == nil)
    }

    @Test func trickleOptionAndCandidates() throws {
        var sdp = try SDPParser().parse(Self.base.replacingOccurrences(of: "a=rtpmap:96 VP8/90000\r\n", with: "a=rtpmap:96 VP8/90000\r\na=candidate:1 1 udp 1 192.0.2.1 5000 typ host\r\na=end-of-candidates\r\n"))
        sdp.setTrickle(true)
        #expect(sdp.media.allSatisfy { $0.attributes.first(ICEOptions.self)?.options == ["trickle"] })
        sdp.setTrickle(false)
        #expect(sdp.media.allSatisfy { !$0.attributes.contains(named: "ice-options") })
        sdp.stripCandidates()
        #expect(!sdp.text.contains("candidate"))
    }

    @Test func selectorsParseAndReject() throws {
        let selector = try CodecSelector(parsing: "H264/90000;profile-level-id=42e01f")
        #expect(selector == CodecSelector(name: "H264", clockRate: 90000, parameters: ["profile-level-id": "42e01f"]))
        for bad in ["", "opus/abc", "opus/48000/2/9", "H264;profile", "a b"] {
            #expect(throws: MungeError.self, "\(bad)") { try CodecSelector(parsing: bad) }
        }
        #expect(throws: MungeError.self) { try MungeRequest.parseReplacement("opus/48000/2") }
        #expect(throws: MungeError.self) { try MungeRequest.parseReplacement("opus:300") }
        #expect(throws: MungeError.self) { try MungeRequest.parseBandwidth("audio=-1") }
    }
}
