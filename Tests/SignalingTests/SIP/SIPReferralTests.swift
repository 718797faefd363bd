@testable import Signaling
import Testing

/// The messages of transfer, redirects and hang-up causes (docs/sip.md, "Transfer",
/// "Redirects", "Reason"), read and written without I/O: a peer's REFER taken or refused with the
/// 4xx that says why, sipfrag status lines, NOTIFY fields, the Contacts a 3xx is followed to
/// (by q, never one tried, at most five), and Q.850 Reason fields both ways.
@Suite struct SIPReferralTests {
    static func refer(_ fields: String) throws -> SIPMessage {
        try SIPMessage.parse(Array(("REFER sip:bob@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bKr1\r\nMax-Forwards: 70\r\n"
            + "From: <sip:alice@parley.test>;tag=a1\r\nTo: <sip:bob@parley.test>;tag=b1\r\nCall-ID: refer-1\r\nCSeq: 7 REFER\r\n"
            + fields + "Content-Length: 0\r\n\r\n").utf8))
    }

    @Test func aReferNamesItsTargetAndWhoReferred() throws {
        let asked = try SIPReferral.request(of: try Self.refer("Refer-To: <sip:carol@parley.test;method=INVITE>\r\nReferred-By: <sip:alice@parley.test>\r\n"))
        #expect(asked == SIPReferral.Request(target: "sip:carol@parley.test", referredBy: "<sip:alice@parley.test>"))
        // The compact form and a bare URI.
        #expect(try SIPReferral.request(of: try Self.refer("r: sip:carol@parley.test\r\n")).target == "sip:carol@parley.test")
    }

    @Test func aReferWeCannotHonourIsRefusedWithA4xx() throws {
        let cases: [(String, Int)] = [
            ("", 400),
            ("Refer-To: <sip:carol@parley.test>\r\nRefer-To: <sip:dave@parley.test>\r\n", 400),
            ("Refer-To: <<<\r\n", 400),
            ("Refer-To: <tel:+15551234>\r\n", 416),
            ("Refer-To: <http://example.com/>\r\n", 416),
            ("Refer-To: <sip:parley.test>\r\n", 400),
            ("Refer-To: <sip:carol@parley.test;method=SUBSCRIBE>\r\n", 403),
            ("Refer-To: <sip:carol@parley.test?Subject=hello>\r\n", 403),
            ("Refer-To: <sip:carol@parley.test?Replaces=a%3Bto-tag%3D1%3Bfrom-tag%3D2&Subject=x>\r\n", 403),
            ("Refer-To: <sip:carol@parley.test?Replaces=abc%40host>\r\n", 400),
            ("Refer-To: <sip:carol@parley.test?Replaces=abc%3Bto-tag%3D%3C1%3E%3Bfrom-tag%3D2>\r\n", 400),
        ]
        for (fields, status) in cases {
            let refer = try Self.refer(fields)
            do {
                _ = try SIPReferral.request(of: refer)
                Issue.record("\(fields.debugDescription) was taken")
            } catch {
                #expect(error.status == status, "\(fields.debugDescription) was refused \(error.status), not \(status)")
                #expect((400..<500).contains(error.status))
            }
        }
    }

    @Test func aReferWithAnEmbeddedReplacesIsAnAttendedTransfer() throws {
        let asked = try SIPReferral.request(of: try Self.refer(
            "Refer-To: <sip:carol@parley.test?Replaces=abc%40host%3Bto-tag%3D1%3Bfrom-tag%3D2>\r\nReferred-By: <sip:alice@parley.test>\r\n"))
        #expect(asked.target == "sip:carol@parley.test")
        #expect(asked.replaces == SIPReplaces(callID: "abc@host", toTag: "1", fromTag: "2"))
        #expect(asked.replaces?.value == "abc@host;to-tag=1;from-tag=2")
        // The header's name in any case, parameters in any order, early-only kept.
        let early = try SIPReferral.request(of: try Self.refer("Refer-To: <sip:carol@parley.test?replaces=x%3Bfrom-tag%3Df%3Bearly-only%3Bto-tag%3Dt>\r\n"))
        #expect(early.replaces == SIPReplaces(callID: "x", toTag: "t", fromTag: "f", earlyOnly: true))
        #expect(try SIPReferral.request(of: try Self.refer("Refer-To: <sip:carol@parley.test>\r\n")).replaces == nil)
    }

    @Test func replacesFieldsAreReadAndWritten() {
        #expect(SIPReplaces(parsing: "98732@sip.example.com ; from-tag=r33th4x0r ;to-tag=ff87ff")
            == SIPReplaces(callID: "98732@sip.example.com", toTag: "ff87ff", fromTag: "r33th4x0r"))
        #expect(SIPReplaces(parsing: "a;to-tag=1;from-tag=2;early-only;x=y")?.earlyOnly == true)
        for garbage in ["", ";to-tag=1;from-tag=2", "a;to-tag=1", "a;from-tag=2", "a b;to-tag=1;from-tag=2", "a;to-tag=;from-tag=2",
                        "a;to-tag=<1>;from-tag=2", String(repeating: "a", count: 300) + ";to-tag=1;from-tag=2"] {
            #expect(SIPReplaces(parsing: garbage) == nil, "\(garbage.prefix(40)) was read as a Replaces")
        }
    }

    @Test func referSubFalseAsksForNoSubscription() throws {
        let target = "Refer-To: <sip:carol@parley.test>\r\n"
        #expect(try SIPReferral.request(of: try Self.refer(target)).subscribes)
        #expect(try SIPReferral.request(of: try Self.refer(target + "Refer-Sub: true\r\n")).subscribes)
        #expect(try !SIPReferral.request(of: try Self.refer(target + "Refer-Sub: false\r\n")).subscribes)
        #expect(try !SIPReferral.request(of: try Self.refer(target + "Refer-Sub:  FALSE ;x=1\r\n")).subscribes)
        for bad in ["Refer-Sub: maybe\r\n", "Refer-Sub: false\r\nRefer-Sub: true\r\n", "Refer-Sub:\r\n"] {
            #expect(throws: SIPReferral.Refusal(status: 400, phrase: "Bad Request (Refer-Sub is neither true nor false)"), "\(bad.debugDescription)") {
                try SIPReferral.request(of: try Self.refer(target + bad))
            }
        }
        // The 202 to our REFER: only `false` means no NOTIFY will come.
        let accepted = "SIP/2.0 202 Accepted\r\nVia: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bKr1\r\nFrom: <sip:alice@parley.test>;tag=a1\r\n"
            + "To: <sip:bob@parley.test>;tag=b1\r\nCall-ID: refer-1\r\nCSeq: 7 REFER\r\n"
        for (fields, declines) in [("", false), ("Refer-Sub: false\r\n", true), ("Refer-Sub: true\r\n", false), ("Refer-Sub: nope\r\n", false)] {
            let response = try SIPMessage.parse(Array((accepted + fields + "Content-Length: 0\r\n\r\n").utf8))
            #expect(SIPReferral.declinesSubscription(response) == declines, "\(fields.debugDescription)")
        }
    }

    /// A sipfrag's status line as read: "CODE PHRASE".
    static func fragment(_ text: String) -> String? {
        SIPReferral.status(ofSipfrag: Array(text.utf8)).map { "\($0.status) \($0.phrase)" }
    }

    @Test func sipfragStatusLinesAreReadAndWritten() {
        #expect(Self.fragment("SIP/2.0 200 OK\r\n") == "200 OK")
        #expect(Self.fragment("SIP/2.0 100 Trying") == "100 Trying")
        #expect(Self.fragment("SIP/2.0 603 Decline\r\nContent-Length: 0\r\n") == "603 Decline")
        #expect(Self.fragment(String(decoding: SIPReferral.sipfrag(status: 486, phrase: "Busy Here"), as: UTF8.self)) == "486 Busy Here")
        for garbage in ["", "SIP/2.0 2000 OK", "HTTP/1.1 200 OK", "SIP/2.0 abc", "SIP/2.0 099 Low", "INVITE sip:a@b SIP/2.0"] {
            #expect(Self.fragment(garbage) == nil, "\(garbage.debugDescription) was read as a status")
        }
        let fields = SIPReferral.notifyFields(referSequence: 7, final: true)
        #expect(fields.map(\.value) == ["refer;id=7", "terminated;reason=noresource", "message/sipfrag;version=2.0"])
        #expect(SIPReferral.notifyFields(referSequence: 7, final: false)[1].value == "active;expires=60")
    }

    static func redirect(_ contacts: String) throws -> SIPMessage {
        try SIPMessage.parse(Array(("SIP/2.0 302 Moved Temporarily\r\nVia: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bKi1\r\n"
            + "From: <sip:alice@parley.test>;tag=a1\r\nTo: <sip:bob@parley.test>;tag=b1\r\nCall-ID: redirect-1\r\nCSeq: 1 INVITE\r\n"
            + contacts + "Content-Length: 0\r\n\r\n").utf8))
    }

    @Test func redirectsGoToTheBestContactNotTriedAndEndOnALoopOrTheLimit() throws {
        var redirects = SIPRedirects(original: "sip:bob@parley.test")
        // Highest q first; a tel: Contact is passed over.
        let first = try Self.redirect("Contact: <tel:+1555>, <sip:dave@parley.test>;q=0.5, <sip:carol@Parley.test>;q=0.9\r\n")
        #expect(try redirects.next(from: first) == "sip:carol@Parley.test")
        // Carol (any case of her host) and Bob were tried: Dave is next, then nothing is left.
        #expect(try redirects.next(from: first) == "sip:dave@parley.test")
        #expect(throws: SIPRedirectError.loop(target: "sip:carol@Parley.test")) { try redirects.next(from: first) }
        #expect(throws: SIPRedirectError.loop(target: "sip:bob@parley.test:5060")) {
            try redirects.next(from: try Self.redirect("Contact: <sip:bob@parley.test:5060>\r\n"))
        }
        #expect(throws: SIPRedirectError.noTarget) { try redirects.next(from: try Self.redirect("")) }
        #expect(throws: SIPRedirectError.noTarget) { try redirects.next(from: try Self.redirect("Contact: <tel:+1555>\r\n")) }

        var chain = SIPRedirects(original: "sip:bob@parley.test")
        for hop in 1...SIPRedirects.limit {
            #expect(try chain.next(from: try Self.redirect("Contact: <sip:hop\(hop)@parley.test>\r\n")) == "sip:hop\(hop)@parley.test")
        }
        #expect(throws: SIPRedirectError.tooMany(limit: 5)) { try chain.next(from: try Self.redirect("Contact: <sip:last@parley.test>\r\n")) }
    }

    @Test func q850ReasonsAreWrittenForOurCausesAndReadFromThePeers() throws {
        #expect(SIPReason.header(for: .normalClearing)?.value == "Q.850;cause=16;text=\"NORMAL_CLEARING\"")
        #expect(SIPReason.header(for: .userBusy)?.value == "Q.850;cause=17;text=\"USER_BUSY\"")
        // FreeSWITCH's own codes are not Q.850's: no field.
        #expect(SIPReason.header(for: .originatorCancel) == nil)
        #expect(SIPReason.header(for: HangupCause(cause: "X")) == nil)

        let bye = try SIPMessage.parse(Array(("BYE sip:bob@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bKb1\r\nMax-Forwards: 70\r\n"
            + "From: <sip:alice@parley.test>;tag=a1\r\nTo: <sip:bob@parley.test>;tag=b1\r\nCall-ID: bye-1\r\nCSeq: 9 BYE\r\n"
            + "Reason: SIP;cause=200;text=\"Call completed elsewhere\", Q.850 ;cause = 34 ;text=\"No circuit, \\\"channel\\\"\"\r\n"
            + "Content-Length: 0\r\n\r\n").utf8))
        let reason = try #require(SIPReason.q850(in: bye))
        #expect(reason == SIPReason(protocolName: "Q.850", cause: 34, text: "No circuit, \"channel\""))
        #expect(SIPReason.hangupCause(q850: reason.cause) == HangupCause(cause: "NORMAL_CIRCUIT_CONGESTION", causeCode: 34))
        #expect(SIPReason.hangupCause(q850: 126) == HangupCause(cause: "CAUSE_126", causeCode: 126))
        for garbage in ["Q.850", "Q.850;cause=abc", "Q.850;cause=999999", ";cause=16", "Q.850;cause=16 junk"] {
            #expect(SIPReason(parsing: garbage) == nil, "\(garbage) was read as a reason")
        }
        // Out of Q.850's range: not a Q.850 cause.
        let outOfRange = try SIPMessage.parse(Array(String(decoding: bye.serialized, as: UTF8.self)
            .replacingOccurrences(of: "cause = 34", with: "cause=487").utf8))
        #expect(SIPReason.q850(in: outOfRange) == nil)
    }
}
