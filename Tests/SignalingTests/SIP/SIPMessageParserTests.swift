@testable import Signaling
import Testing

/// Valid messages in the manner of RFC 4475 §3.1.1: each must parse, read as the RFC reads it,
/// and serialize back to its exact bytes.
@Suite struct SIPMessageParserTests {
    @Test func compactFormsFoldingAndWhitespaceReadAsTheirLongForms() throws {
        let message = try SIPMessage.parse(SIPTestMessages.tangledInvite)
        try message.validate()
        #expect(message.method == "INVITE")
        #expect(message.requestURI == "sip:carol@chicago.example.com;transport=udp")

        let to = try message.to()
        #expect(to.uri == "sip:carol@chicago.example.com")
        #expect(to.tag == "1a2b")
        let from = try message.from()
        #expect(from.displayName == #"Ann "the ops" \ Lee"#)
        #expect(from.tag == "98asjd8")
        #expect(try message.maxForwards() == 68)
        #expect(try message.callID() == "lw.84b4c76e66710@pc33.atlanta.example.com")
        #expect(message.header("Subject")?.value == "a folded subject line")
        #expect(message.header("newfangledheader")?.value == "newfangled value continued newfangled value")
        #expect(message.header("s")?.value == "a folded subject line", "a compact name finds its long form")
        #expect(try message.cseq() == SIPCSeq(number: 9, method: "INVITE"))

        let vias = try message.vias()
        #expect(vias.count == 3, "one folded Via, then two values in one field")
        #expect(vias[0].transport == "UDP")
        #expect(vias[0].host == "192.0.2.2")
        #expect(vias[0].asksForRPort && vias[0].rport == nil)
        #expect(vias[0].branch == "z9hG4bK390skdjuw")
        #expect(vias[1].transport == "TCP" && vias[1].port == 5060 && vias[1].branch == "z9hG4bK77ef4c2312983.1")
        #expect(vias[2].host == "[2001:db8::9:1]" && vias[2].port == 5070)
        #expect(vias[2].received == "2001:db8::9:255")

        let contact = try #require(try message.contacts()?.first)
        #expect(contact.uri == "sip:ann@192.0.2.2")
        #expect(contact.parameters["expires"] == "3600")
        #expect(message.header(.contentType)?.value == "application/sdp")
        #expect(String(decoding: message.body, as: UTF8.self).hasPrefix("v=0\r\n"))
        #expect(String(decoding: message.body, as: UTF8.self).hasSuffix("PCMU/8000\r\n"))
        #expect(message.header(.contentLength)?.writtenName == "l")
        #expect(message.header(.to)?.line == 2)
        #expect(message.header(.from)?.line == 4)
    }

    @Test func aMethodOfEveryTokenCharacterAndControlCharactersInQuotedPairs() throws {
        let message = try SIPMessage.parse(SIPTestMessages.oddMethod)
        try message.validate()
        #expect(message.method == "!interesting-Method0123456789_*+`.%indeed'~")
        let to = try message.to()
        #expect(to.displayName == "BEL:\u{07} NUL:\u{00} DEL:\u{7F}")
        let from = try message.from()
        #expect(from.displayName == "token1~` token2'+_ token3*%!.-")
        #expect(from.parameters["fromParam''~+*_!.-%"] == "работающий")
        #expect(from.tag == "_token~1'+`*%!-.")
        #expect(try message.callID() == #"intmeth.word%ZK-!.*_+'@word`~)(><:\/"][?}{"#)
        #expect(message.header("EXTENSIONHEADER-!.%*+_`'~")?.value == "大停電")
        #expect(try message.topVia().branch == "z9hG4bK-.!%66*_+`'~")
    }

    @Test func escapesInURIsStayWrittenAndDecodeOnRequest() throws {
        let message = try SIPMessage.parse(SIPTestMessages.escapedURIs)
        try message.validate()
        let requestURI = try SIPURI(parsing: try #require(message.requestURI))
        #expect(requestURI.user == "user;par=u%40example.net")
        #expect(requestURI.decodedUser == "user;par=u@example.net")
        #expect(requestURI.host == "example.com")
        #expect(try message.to().sipURI().decodedUser == "alice")
        #expect(try message.from().sipURI().decodedUser == "null-\u{00}-null")
        let contacts = try #require(try message.contacts())
        #expect(contacts.count == 2)
        let second = try contacts[1].sipURI()
        #expect(second.decodedUser == "caller")
        #expect(second.parameters["n%61me"] == "v%61lue%25%34%31", "parameters stay as written")
        #expect(message.header(.contentLength)?.writtenName == "L")
    }

    @Test func unknownTransportsAreCarried() throws {
        let message = try SIPMessage.parse(SIPTestMessages.transports)
        #expect(try message.vias().map(\.transport) == ["UDP", "SCTP", "TLS", "UNKNOWN", "TCP"])
        #expect(try message.vias().map(\.isReliable) == [false, true, true, true, true])
    }

    @Test func responsesWithAnEmptyOrUTF8ReasonPhrase() throws {
        let empty = try SIPMessage.parse(SIPTestMessages.noReason)
        #expect(empty.startLine == .response(status: 100, reason: ""))
        let bare = try SIPMessage.parse(Array("SIP/2.0 180\r\nContent-Length: 0\r\n\r\n".utf8))
        #expect(bare.status == 180, "a status line without the space before an empty reason is read too")

        let utf8 = try SIPMessage.parse(SIPTestMessages.utf8Reason)
        try utf8.validate()
        #expect(utf8.startLine == .response(status: 200, reason: "= 2**3 * 5**2 но сто девяносто девять - простое"))
        #expect(try utf8.from().tag == "11141343", "a bare addr-spec's parameters belong to the field")
        #expect(try utf8.from().uri == "sip:user@example.com")
        #expect(utf8.body.count == 123)
    }

    @Test func contactParametersInsideAndOutsideTheBrackets() throws {
        let message = try SIPMessage.parse(SIPTestMessages.contactParameters)
        let contacts = try #require(try message.contacts())
        #expect(contacts.count == 4)
        #expect(contacts[0].uri == "sip:+19725552222@gw1.example.net" && contacts[0].parameters.contains("unknownparam"))
        #expect(contacts[1].uri == "sip:+19725552222@gw1.example.net;unknownparam" && contacts[1].parameters["expires"] == "60")
        #expect(contacts[2].displayName == "Watson at home")
        let uri = try contacts[2].sipURI()
        #expect(uri.host == "[2001:db8::10]" && uri.port == 5070 && uri.transport == "tcp")
        #expect(contacts[2].parameters["q"] == "0.5")
        #expect(contacts[3].parameters["expires"] == "0")
    }

    @Test func contactStarRemovesEveryBinding() throws {
        var message = try SIPMessage.parse(SIPTestMessages.contactParameters)
        message.set(.contact, "*")
        #expect(try message.contacts() == nil)
    }

    @Test func aDatagramWithoutContentLengthHasTheRestAsBodyAndExtraBytesAreDropped() throws {
        let head = "MESSAGE sip:bob@example.com SIP/2.0\r\nVia: SIP/2.0/UDP a.example.com;branch=z9hG4bK1\r\n"
            + "From: <sip:a@example.com>;tag=1\r\nTo: <sip:bob@example.com>\r\nCall-ID: c1\r\nCSeq: 1 MESSAGE\r\n"
        let open = try SIPMessage.parse(Array((head + "\r\nhello").utf8))
        #expect(open.body == Array("hello".utf8))
        let trailing = try SIPMessage.parse(Array((head + "Content-Length: 2\r\n\r\nhello").utf8))
        #expect(trailing.body == Array("he".utf8), "RFC 3261 §18.3: bytes past Content-Length are dropped")
    }

    @Test func bareLineFeedsAreAccepted() throws {
        let message = try SIPMessage.parse(Array("SIP/2.0 200 OK\nVia: SIP/2.0/UDP h;branch=z9hG4bKx\nContent-Length: 2\n\nok".utf8))
        #expect(message.status == 200)
        #expect(try message.topVia().host == "h")
        #expect(message.body == Array("ok".utf8))
    }

    @Test func listValuesSplitOutsideQuotesAndBrackets() {
        #expect(SIPValueScanner.splitList(#""a, b" <sip:x@y;p=1,2>;q=1, <sip:z@w> ,, sip:v"#)
                == [#""a, b" <sip:x@y;p=1,2>;q=1"#, "<sip:z@w>", "sip:v"])
        #expect(SIPValueScanner.splitList(#""a \", b", c"#) == [#""a \", b""#, "c"])
    }

    @Test func headerNamesCompareWithoutCaseAndCompactFormsMatchLongOnes() {
        let pairs: [(String, String)] = [("i", "Call-ID"), ("m", "Contact"), ("f", "From"), ("t", "To"), ("v", "Via"),
                                         ("l", "Content-Length"), ("c", "Content-Type"), ("k", "Supported"), ("s", "Subject"),
                                         ("e", "Content-Encoding"), ("o", "Event"), ("r", "Refer-To"), ("b", "Referred-By"), ("u", "Allow-Events")]
        for (short, long) in pairs {
            #expect(SIPHeaderName(short) == SIPHeaderName(long.uppercased()), "\(short) is \(long)")
            #expect(SIPHeaderName(short.uppercased()).canonical == long)
            #expect(SIPHeaderName(long).compactForm == short)
        }
        #expect(SIPHeaderName("x-custom") == SIPHeaderName("X-Custom"))
        #expect(SIPHeaderName("Via") != SIPHeaderName("Route"))
    }
}
