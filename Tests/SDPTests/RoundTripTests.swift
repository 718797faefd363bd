import Foundation
import SDP
import Testing

@Suite struct RoundTripTests {
    @Test func corpusIsLargeAndVaried() {
        #expect(Fixtures.validNames.count >= 20)
        let stacks = Set(Fixtures.validNames.map { $0.split(separator: "-").first.map(String.init) ?? "" })
        #expect(stacks.count >= 6, "fixtures from only \(stacks.sorted())")
    }

    @Test(arguments: Fixtures.validNames)
    func parseThenSerializeGivesTheSameBytes(name: String) throws {
        let input = try Fixtures.bytes(Fixtures.root.appendingPathComponent("valid/\(name)"))
        let sdp = try SDPParser().parse(bytes: input)
        let difference = firstDifference(SDPSerializer.bytes(sdp), input)
        #expect(difference == nil, "\(difference ?? "")")
    }

    @Test func lineEndingsAndFinalTerminatorAreKept() throws {
        let crlf = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"
        let lf = crlf.replacingOccurrences(of: "\r\n", with: "\n")
        let unterminated = String(decoding: crlf.utf8.dropLast(2), as: UTF8.self)
        for text in [crlf, lf, unterminated] {
            let sdp = try SDPParser().parse(text)
            #expect(sdp.text == text)
        }
        #expect(try SDPParser().parse(lf).lineEnding == .lf)
        #expect(try SDPParser().parse(unterminated).endsWithLineEnding == false)
    }

    @Test func unknownAttributesKeepTheirPlaceAndSpelling() throws {
        let text = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=x-vendor: spaced value \r\nm=audio 9 RTP/AVP 0\r\na=zzz\r\na=rtcp-mux\r\na=yyy:\r\n"
        let sdp = try SDPParser().parse(text)
        #expect(sdp.attributes == [Attribute("x-vendor", " spaced value ")])
        #expect(sdp.media[0].attributes.map(\.name) == ["zzz", "rtcp-mux", "yyy"])
        #expect(sdp.media[0].attributes[2].value == "")
        #expect(sdp.text == text)
    }

    @Test func typedViewsReadTheAttributes() throws {
        let text = """
            v=0\r
            o=- 1 2 IN IP4 127.0.0.1\r
            s=-\r
            t=0 0\r
            a=group:BUNDLE 0\r
            m=audio 9 UDP/TLS/RTP/SAVPF 111 0\r
            c=IN IP4 0.0.0.0\r
            b=AS:64\r
            a=mid:0\r
            a=sendonly\r
            a=rtpmap:111 opus/48000/2\r
            a=fmtp:111 minptime=10;useinbandfec=1\r
            a=ssrc:12345 cname:abc\r
            a=candidate:1 1 udp 2122260223 192.0.2.1 50000 typ host generation 0\r
            a=fingerprint:sha-256 AB:CD\r
            a=setup:actpass\r

            """
        let sdp = try SDPParser().parse(text)
        let audio = sdp.media[0]
        #expect(sdp.attributes.first(Group.self) == Group(semantics: "BUNDLE", mids: ["0"]))
        #expect(audio.attributes.first(MediaID.self)?.tag == "0")
        #expect(audio.attributes.direction == .sendonly)
        #expect(audio.bandwidths.first?.value == 64)
        #expect(audio.codecs.map(\.label) == ["opus/48000/2", "PCMU/8000"])
        #expect(audio.codecs[1].isStaticAssignment)
        #expect(audio.attributes.first(FormatParameters.self)?.value(for: "useinbandfec") == "1")
        #expect(audio.attributes.first(SSRCAttribute.self) == SSRCAttribute(ssrc: 12345, name: "cname", value: "abc"))
        let candidate = try #require(audio.attributes.first(Candidate.self))
        #expect(candidate.port == 50000 && candidate.type == "host" && candidate.extensions.first?.name == "generation")
        #expect(audio.attributes.first(Fingerprint.self)?.bytes == [0xAB, 0xCD])
        #expect(audio.attributes.first(SetupRole.self) == .actpass)
    }
}
