import Foundation
import SDP
import Testing

/// What real stacks send outside RFC 8866/8839 and Parley accepts: each case parses, warns
/// exactly as its `.warnings` file says, and comes back byte for byte.
@Suite struct LenientTests {
    @Test func corpusHasLenientCases() {
        #expect(Fixtures.lenientNames.count >= 3)
    }

    @Test(arguments: Fixtures.lenientNames)
    func acceptedWithWarningsAndKeptAsWritten(name: String) throws {
        let url = Fixtures.root.appendingPathComponent("lenient/\(name)")
        let input = try Fixtures.bytes(url)
        let expected = try Fixtures.text(url.deletingPathExtension().appendingPathExtension("warnings"))
            .split(separator: "\n").map(String.init)
        let (sdp, warnings) = try SDPParser().parseReportingWarnings(bytes: input)
        #expect(warnings.map(\.description) == expected)
        #expect(!warnings.isEmpty, "a lenient case must need leniency")
        let difference = firstDifference(SDPSerializer.bytes(sdp), input)
        #expect(difference == nil, "\(difference ?? "")")
    }

    @Test(arguments: Fixtures.validNames)
    func strictDocumentsGiveNoWarning(name: String) throws {
        let input = try Fixtures.bytes(Fixtures.root.appendingPathComponent("valid/\(name)"))
        #expect(try SDPParser().parseReportingWarnings(bytes: input).warnings.isEmpty)
    }

    private static let head = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\n"

    @Test func mediaLinesInAnyOrderKeepTheirPlaceAndMeaning() throws {
        let text = Self.head + "t=0 0\r\nm=audio 9 RTP/AVP 0\r\na=mid:0\r\nc=IN IP4 192.0.2.1\r\na=sendrecv\r\nb=AS:64\r\n"
        let (sdp, warnings) = try SDPParser().parseReportingWarnings(bytes: Array(text.utf8))
        #expect(warnings.map(\.kind) == [.lineOutOfOrder])
        #expect(warnings.first?.line == 7)
        #expect(sdp.media[0].connections.first?.address == "192.0.2.1")
        #expect(sdp.media[0].bandwidths.first?.value == 64)
        #expect(sdp.text == text)

        // A line added since parsing goes after the written ones; the result still parses.
        var changed = sdp
        changed.media[0].attributes.append(Attribute("rtcp-mux"))
        #expect(changed.text == text + "a=rtcp-mux\r\n")
        #expect(try SDPParser().parse(changed.text).text == changed.text)
    }

    @Test func sessionAttributesBeforeTimingAreAccepted() throws {
        let text = Self.head + "a=group:BUNDLE 0\r\nc=IN IP4 192.0.2.1\r\nt=0 0\r\nm=audio 9 RTP/AVP 0\r\n"
        let (sdp, warnings) = try SDPParser().parseReportingWarnings(bytes: Array(text.utf8))
        #expect(warnings.count == 1 && warnings[0].line == 5)
        #expect(sdp.connection?.address == "192.0.2.1")
        #expect(sdp.text == text)
    }

    @Test func orderStaysStrictWhereMeaningWouldBeLost() {
        let cases: [(String, Int, SDPParseError.Kind)] = [
            // Which t= would this r= repeat?
            (Self.head + "t=0 0\r\na=x\r\nr=7d 1h 0\r\n", 6, .lineOutOfOrder),
            // A second session c= out of order is still a second c=.
            (Self.head + "c=IN IP4 192.0.2.1\r\nt=0 0\r\nc=IN IP4 192.0.2.2\r\n", 6, .duplicateLine),
            (Self.head + "t=0 0\r\nm=audio 9 RTP/AVP 0\r\na=x\r\ni=late\r\ni=again\r\n", 8, .duplicateLine),
            // m= ends the session part: a t= after it cannot belong to the session.
            (Self.head + "m=audio 9 RTP/AVP 0\r\nt=0 0\r\n", 4, .missingLine),
            ("v=0\r\ns=-\r\no=- 1 2 IN IP4 127.0.0.1\r\nt=0 0\r\n", 2, .missingLine),
        ]
        for (text, line, kind) in cases {
            let error = #expect(throws: SDPParseError.self) { try SDPParser().parse(text) }
            #expect(error?.line == line && error?.kind == kind, "\(text.debugDescription): \(error.map(String.init(describing:)) ?? "")")
        }
    }

    @Test func mixedEndingsFollowTheLinesUntilTheyChange() throws {
        let text = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\ns=-\r\nt=0 0\r\n"
        var sdp = try SDPParser().parse(text)
        #expect(sdp.text == text)
        #expect(sdp.lineEnding == .crlf)
        sdp.attributes.append(Attribute("recvonly"))
        #expect(sdp.text == "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=recvonly\r\n")
    }

    @Test func onlyEmptyLinesAtTheEndAreTolerated() throws {
        let text = Self.head + "t=0 0\r\n\r\n\n"
        let (sdp, warnings) = try SDPParser().parseReportingWarnings(bytes: Array(text.utf8))
        #expect(warnings.map(\.kind) == [.mixedLineEndings, .trailingEmptyLines])
        #expect(sdp.trailingEmptyLines == 2)
        #expect(sdp.text == text)
        let inside = #expect(throws: SDPParseError.self) { try SDPParser().parse(Self.head + "\r\nt=0 0\r\n") }
        #expect(inside?.kind == .emptyLine && inside?.line == 4)
        #expect(throws: SDPParseError.self) { try SDPParser().parse("\r\n\r\n") }
    }

    /// RFC 8839: foundation = 1*32 ice-char, and ice-char = ALPHA / DIGIT / "+" / "/".
    @Test func iceCharactersAreAcceptedWhereverTheGrammarAllowsThem() throws {
        let text = Self.head + "t=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 0\r\na=ice-ufrag:a+b/\r\na=ice-pwd:x9cml/YzichV2+XlhiMu8g\r\n"
            + "a=candidate:Ab+/9 1 udp 2122260223 192.0.2.1 50000 typ host\r\n"
        let sdp = try SDPParser().parse(text)
        #expect(sdp.media[0].attributes.first(Candidate.self)?.foundation == "Ab+/9")
        #expect(sdp.media[0].attributes.first(ICEUsernameFragment.self)?.ufrag == "a+b/")
        #expect(sdp.text == text)
        #expect(throws: SDPParseError.self) { try SDPParser().parse(Self.head + "t=0 0\r\na=candidate:a:b 1 udp 1 192.0.2.1 1 typ host\r\n") }
    }
}
