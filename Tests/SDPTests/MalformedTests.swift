import Foundation
import SDP
import Testing

@Suite struct MalformedTests {
    @Test func corpusHasMalformedCases() {
        #expect(Fixtures.malformedNames.count >= 20)
    }

    @Test(arguments: Fixtures.malformedNames)
    func rejectedAtTheExpectedLine(name: String) throws {
        let url = Fixtures.root.appendingPathComponent("malformed/\(name)")
        let expected = try Fixtures.text(url.deletingPathExtension().appendingPathExtension("line"))
        let line = try #require(Int(expected.trimmingCharacters(in: .whitespacesAndNewlines)))
        let error = try #require(throws: SDPParseError.self) { try SDPParser().parse(bytes: Fixtures.bytes(url)) }
        #expect(error.line == line, "\(error)")
        #expect(!error.reason.isEmpty)
    }

    @Test func limitsStopAbuse() {
        let head = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"
        let small = SDPLimits(maxDocumentBytes: 200, maxLineBytes: 40, maxMediaSections: 1, maxAttributes: 2)
        let parser = SDPParser(limits: small)
        #expect(throws: SDPParseError(line: 0, kind: .documentTooLarge, reason: "document is 201 bytes; the limit is 200")) {
            try parser.parse(String(repeating: "x", count: 201))
        }
        #expect((try? parser.parse(head + "a=" + String(repeating: "y", count: 50) + "\r\n")) == nil)
        let lineError = #expect(throws: SDPParseError.self) { try parser.parse(head + "a=" + String(repeating: "y", count: 50) + "\r\n") }
        #expect(lineError?.kind == .lineTooLong && lineError?.line == 5)
        let media = #expect(throws: SDPParseError.self) { try parser.parse(head + "m=audio 9 RTP/AVP 0\r\nm=audio 9 RTP/AVP 0\r\n") }
        #expect(media?.kind == .tooManyMediaSections && media?.line == 6)
        let attributes = #expect(throws: SDPParseError.self) { try parser.parse(head + "a=a\r\na=b\r\na=c\r\n") }
        #expect(attributes?.kind == .tooManyAttributes && attributes?.line == 7)
    }

    @Test func errorsNeverQuoteSecrets() {
        let head = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 RTP/SAVP 0\r\n"
        for line in ["a=ice-pwd:secret:pass", "a=ice-pwd:secret pass", "a=crypto:1 AES_CM_128_HMAC_SHA1_80 secretkeymaterial", "a=crypto:x AES secretkeymaterial"] {
            let error = #expect(throws: SDPParseError.self) { try SDPParser().parse(head + line + "\r\n") }
            #expect(error?.line == 6)
            #expect(error.map { !$0.description.contains("secret") } == true, "\(error.map(String.init(describing:)) ?? "")")
        }
    }
}
