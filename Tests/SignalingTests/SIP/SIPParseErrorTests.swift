@testable import Signaling
import Testing

/// Invalid messages in the manner of RFC 4475 §3.1.2 and §3.2: each fails with its own kind of
/// `SIPParseError` at the line at fault.
@Suite struct SIPParseErrorTests {
    /// A valid request with one line swapped for `replacement` (or inserted when `line` is past the end).
    static func request(replacing line: Int? = nil, with replacement: String? = nil, body: String = "") -> [UInt8] {
        var lines = [
            "INVITE sip:bob@biloxi.example.com SIP/2.0",
            "Via: SIP/2.0/UDP pc33.atlanta.example.com;branch=z9hG4bK776asdhds",
            "Max-Forwards: 70",
            "To: Bob <sip:bob@biloxi.example.com>",
            "From: Alice <sip:alice@atlanta.example.com>;tag=1928301774",
            "Call-ID: a84b4c76e66710@pc33.atlanta.example.com",
            "CSeq: 314159 INVITE",
            "Content-Length: \(body.utf8.count)",
        ]
        if let line, let replacement {
            if line <= lines.count { lines[line - 1] = replacement } else { lines.append(replacement) }
        }
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n" + body).utf8)
    }

    static func failure(_ bytes: [UInt8], limits: SIPLimits = SIPLimits(), validate: Bool = true) -> SIPParseError? {
        do {
            let message = try SIPMessage.parse(bytes, limits: limits)
            if validate { try message.validate() }
            return nil
        } catch {
            return error
        }
    }

    @Test func theBaseRequestIsValid() throws {
        try SIPMessage.parse(Self.request()).validate()
    }

    @Test(arguments: [
        ("<sip:bob@biloxi.example.com>", "angle brackets around the Request-URI"),
        ("sip:bob@biloxi.example.com;param=a b", "a space inside the Request-URI"),
        ("bob@biloxi.example.com", "a Request-URI without a scheme"),
    ])
    func badRequestURIs(_ uri: String, _ what: String) throws {
        let error = try #require(Self.failure(Self.request(replacing: 1, with: "INVITE \(uri) SIP/2.0")), "\(what)")
        #expect(error.kind == .badStartLine && error.line == 1, "\(what): \(error)")
    }

    @Test(arguments: [
        "INVITE  sip:bob@biloxi.example.com SIP/2.0",
        "INVITE sip:bob@biloxi.example.com  SIP/2.0",
        "INVITE sip:bob@biloxi.example.com SIP/2.0 ",
        "INV ITE sip:bob@biloxi.example.com SIP/2.0",
        "INVITE sip:bob@biloxi.example.com SIP/2",
        "INVITE sip:bob@biloxi.example.com HTTP/1.1",
        "SIP/2.0 4294967301 Better Late Than Never",
        "SIP/2.0 099 Too Low",
        "SIP/2.0 20 Short",
        "",
    ])
    func badStartLines(_ line: String) throws {
        let error = try #require(Self.failure(Self.request(replacing: 1, with: line)), "accepted \(line)")
        #expect(error.kind == .badStartLine, "\(line): \(error)")
        #expect(error.line == 1)
    }

    @Test func anotherVersionIsUnsupportedNotMalformed() throws {
        let error = try #require(Self.failure(Self.request(replacing: 1, with: "INVITE sip:bob@biloxi.example.com SIP/7.0")))
        #expect(error.kind == .unsupportedVersion && error.line == 1)
    }

    @Test func contentLengthLargerThanTheBodyNegativeOrRepeated() throws {
        let long = try #require(Self.failure(Self.request(replacing: 8, with: "Content-Length: 9999", body: "v=0\r\n")))
        #expect(long.kind == .badContentLength && long.line == 8)
        let negative = try #require(Self.failure(Self.request(replacing: 8, with: "Content-Length: -999")))
        #expect(negative.kind == .badContentLength && negative.line == 8)
        let repeated = try #require(Self.failure(Self.request(replacing: 9, with: "l: 0")))
        #expect(repeated.kind == .badContentLength && repeated.line == 9)
        let twoValues = try #require(Self.failure(Self.request(replacing: 8, with: "Content-Length: 0, 0")))
        #expect(twoValues.kind == .badContentLength)
    }

    @Test func overlargeScalarsAreRefused() throws {
        let cseq = try #require(Self.failure(Self.request(replacing: 7, with: "CSeq: 36893488147419103232 INVITE")))
        #expect(cseq.kind == .badValue && cseq.line == 7)
        let highCSeq = try #require(Self.failure(Self.request(replacing: 7, with: "CSeq: 2147483648 INVITE")))
        #expect(highCSeq.kind == .badValue, "RFC 3261 §8.1.1.5: below 2**31")
        let hops = try #require(Self.failure(Self.request(replacing: 3, with: "Max-Forwards: 300")))
        #expect(hops.kind == .badValue && hops.line == 3)
        let message = try SIPMessage.parse(Self.request(replacing: 9, with: "Expires: 10000000000000000000"))
        #expect(throws: SIPParseError.self) { try message.expires() }
    }

    @Test func missingRepeatedAndMismatchedFields() throws {
        let noCallID = try #require(Self.failure(Self.request(replacing: 6, with: "Subject: none")))
        #expect(noCallID.kind == .missingHeader && noCallID.reason.contains("Call-ID"))
        let twoCSeq = try #require(Self.failure(Self.request(replacing: 9, with: "CSeq: 314160 INVITE")))
        #expect(twoCSeq.kind == .repeatedHeader && twoCSeq.line == 9)
        let twoFrom = try #require(Self.failure(Self.request(replacing: 9, with: "f: <sip:eve@example.com>;tag=2")))
        #expect(twoFrom.kind == .repeatedHeader && twoFrom.line == 9, "a compact form repeats its long form")
        let mismatch = try #require(Self.failure(Self.request(replacing: 7, with: "CSeq: 314159 ACK")))
        #expect(mismatch.kind == .mismatchedHeader && mismatch.line == 7)
        let noVia = try #require(Self.failure(Self.request(replacing: 2, with: "Subject: none")))
        #expect(noVia.kind == .missingHeader)
    }

    @Test func malformedFieldsNameTheirLine() throws {
        let cases: [(Int, String, SIPParseError.Kind)] = [
            (4, #"To: "Bob <sip:bob@biloxi.example.com>"#, .badValue),
            (4, "To: Bob@home <sip:bob@biloxi.example.com>", .badValue),
            (4, "To: <sip:bob@biloxi.example.com", .badValue),
            (5, "From: Alice <sip:alice@atlanta.example.com>;=x", .badValue),
            (2, "Via: SIP/2.0/UDP", .badValue),
            (2, "Via: SIP/3.0/UDP host;branch=z9hG4bK1", .badValue),
            (2, "Via: SIP/2.0/UDP host:99999;branch=z9hG4bK1", .badValue),
            (2, "Via: SIP/2.0/UDP host;branch=z9hG4bK1;rport=http", .badValue),
            (6, "Call-ID: two words", .badValue),
            (7, "CSeq: INVITE", .badValue),
            (7, "CSeq: 1 INVITE extra", .badValue),
            (3, "Max-Forwards 70", .badHeaderField),
            (3, ": 70", .badHeaderField),
            (3, "Max Forwards: 70", .badHeaderField),
        ]
        for (line, text, kind) in cases {
            let error = try #require(Self.failure(Self.request(replacing: line, with: text)), "accepted \(text)")
            #expect(error.kind == kind && error.line == line, "\(text): \(error)")
        }
    }

    @Test func badURIsInsideFields() throws {
        for uri in ["sip:bob@bad%G1host", "sip:@example.com", "sip:bob@", "sip:bob@[2001:db8::1", "sip:bob@host:port", "http://example.com"] {
            let message = try SIPMessage.parse(Self.request(replacing: 4, with: "To: <\(uri)>"))
            let error = try #require(throws: SIPParseError.self, "\(uri)") { try message.to().sipURI(line: 4) }
            #expect(error.kind == .badValue && error.line == 4, "\(uri): \(error)")
        }
    }

    @Test func framingFaults() throws {
        let continuationFirst = Array("OPTIONS sip:a@b SIP/2.0\r\n folded\r\nContent-Length: 0\r\n\r\n".utf8)
        #expect(Self.failure(continuationFirst)?.kind == .badHeaderField)
        #expect(Self.failure(continuationFirst)?.line == 2)
        let bareCR = Array("OPTIONS sip:a@b SIP/2.0\r\nSubject: a\rb\r\nContent-Length: 0\r\n\r\n".utf8)
        #expect(Self.failure(bareCR)?.kind == .badHeaderField)
        let noEmptyLine = Array("OPTIONS sip:a@b SIP/2.0\r\nContent-Length: 0\r\n".utf8)
        #expect(Self.failure(noEmptyLine)?.kind == .incomplete)
        let unterminated = Array("OPTIONS sip:a@b SIP/2.0\r\nContent-Len".utf8)
        #expect(Self.failure(unterminated)?.kind == .incomplete)
        #expect(Self.failure([])?.kind == .incomplete)
    }

    @Test func limitsAreCheckedBeforeTheWork() throws {
        var limits = SIPLimits()
        limits.maximumMessageSize = 200
        let large = try #require(Self.failure(Self.request(body: String(repeating: "x", count: 300)), limits: limits))
        #expect(large.kind == .messageTooLarge && large.line == 0)

        limits = SIPLimits()
        limits.maximumLineLength = 80
        let longLine = try #require(Self.failure(Self.request(replacing: 9, with: "Subject: " + String(repeating: "y", count: 100)), limits: limits))
        #expect(longLine.kind == .headerLineTooLong && longLine.line == 9)
        let longFolded = try #require(Self.failure(Self.request(replacing: 9, with: "Subject: " + Array(repeating: "yyyyyyyyyy", count: 10).joined(separator: "\r\n ")), limits: limits))
        #expect(longFolded.kind == .headerLineTooLong && longFolded.line == 9, "continuation lines count toward the field's length")

        limits = SIPLimits()
        limits.maximumHeaderCount = 7
        let many = try #require(Self.failure(Self.request(replacing: 9, with: "Subject: one too many"), limits: limits))
        #expect(many.kind == .tooManyHeaders && many.line == 9)

        limits = SIPLimits()
        limits.maximumBodySize = 100
        let body = try #require(Self.failure(Self.request(replacing: 8, with: "Content-Length: 99999999999999999999999"), limits: limits))
        #expect(body.kind == .bodyTooLarge && body.line == 8)
    }

    @Test func errorsNeverQuoteAFieldsValue() throws {
        let secret = "Digest username=\"alice\", response=\"0123456789abcdef0123456789abcdef\", realm=\"x\""
        let message = try SIPMessage.parse(Self.request(replacing: 4, with: "To: <sip:bob@biloxi.example.com>;\(secret)"))
        let error = try #require(throws: SIPParseError.self) { try message.to() }
        #expect(!error.description.contains("0123456789abcdef"), "\(error)")
    }
}
