@testable import Signaling
import Testing

/// A message passed on unchanged is its bytes as received; a changed one keeps every field it
/// did not change as received; a built one reads back as built.
@Suite struct SIPRoundTripTests {
    static let received: [(String, [UInt8])] = [
        ("tangledInvite", SIPTestMessages.tangledInvite), ("oddMethod", SIPTestMessages.oddMethod),
        ("escapedURIs", SIPTestMessages.escapedURIs), ("transports", SIPTestMessages.transports),
        ("noReason", SIPTestMessages.noReason), ("utf8Reason", SIPTestMessages.utf8Reason),
        ("contactParameters", SIPTestMessages.contactParameters),
    ]

    @Test(arguments: received.map(\.0))
    func receivedMessagesSerializeToTheirBytes(_ name: String) throws {
        let bytes = try #require(Self.received.first { $0.0 == name }?.1)
        let message = try SIPMessage.parse(bytes)
        #expect(message.serialized == bytes)
        #expect(try SIPMessage.parse(message.serialized) == message)
    }

    @Test func aPrependedViaLeavesTheRestAsReceived() throws {
        var message = try SIPMessage.parse(SIPTestMessages.tangledInvite)
        let via = SIPVia(transport: "TCP", host: "192.0.2.9", port: 5062, branch: "z9hG4bKours")
        message.prepend(SIPHeader(.via, via.description))
        let text = message.serializedText
        let original = String(decoding: SIPTestMessages.tangledInvite, as: UTF8.self)
        let firstLineEnd = try #require(original.firstRange(of: "\r\n")).upperBound
        #expect(text == original[..<firstLineEnd] + "Via: SIP/2.0/TCP 192.0.2.9:5062;branch=z9hG4bKours;rport\r\n" + original[firstLineEnd...])
        let reread = try SIPMessage.parse(message.serialized)
        #expect(try reread.vias().map(\.branch) == ["z9hG4bKours", "z9hG4bK390skdjuw", "z9hG4bK77ef4c2312983.1", "z9hG4bKas3-111"])
    }

    @Test func removingTheTopViaValueKeepsTheOthers() throws {
        var message = try SIPMessage.parse(SIPTestMessages.tangledInvite)
        message.removeFirstValue(.via)
        message.removeFirstValue(.via)
        #expect(try message.vias().map(\.branch) == ["z9hG4bKas3-111"])
    }

    @Test func aBuiltRequestReadsBackAsBuilt() throws {
        let body = Array("v=0\r\n".utf8)
        var from = SIPNameAddress(displayName: #"Parley "bot" \ 1"#, uri: "sip:bot@example.com")
        from.parameters.append("tag", "a73kszlfl")
        let message = SIPMessage.request(method: "INVITE", uri: "sip:ivr@example.com", headers: [
            SIPHeader(.via, SIPVia(transport: "UDP", host: "192.0.2.1", port: 5060, branch: "z9hG4bK74bf9").description),
            SIPHeader(.maxForwards, "70"),
            SIPHeader(.from, from.description),
            SIPHeader(.to, SIPNameAddress(uri: "sip:ivr@example.com").description),
            SIPHeader(.callID, "3848276298220188511@example.com"),
            SIPHeader(.cseq, SIPCSeq(number: 1, method: "INVITE").description),
            SIPHeader(.contentType, "application/sdp"),
        ], body: body)
        let text = message.serializedText
        #expect(text.hasPrefix("INVITE sip:ivr@example.com SIP/2.0\r\nVia: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK74bf9;rport\r\n"))
        #expect(text.hasSuffix("Content-Length: 5\r\n\r\nv=0\r\n"))
        let reread = try SIPMessage.parse(message.serialized)
        try reread.validate()
        #expect(try reread.from().displayName == #"Parley "bot" \ 1"#)
        #expect(try reread.from().tag == "a73kszlfl")
        #expect(reread.body == body)
        #expect(reread.serialized == message.serialized)
    }

    @Test func aURIWithEveryPartSerializesAsWrittenAndHidesItsPassword() throws {
        let text = "sips:alice:secret@[2001:db8::1]:5061;transport=tcp;lr?subject=project%20x&priority=urgent"
        let uri = try SIPURI(parsing: text)
        #expect(uri.scheme == "sips" && uri.user == "alice" && uri.password == "secret")
        #expect(uri.host == "[2001:db8::1]" && uri.port == 5061 && uri.transport == "tcp" && uri.isLooseRouter)
        #expect(uri.headers == "subject=project%20x&priority=urgent")
        #expect(uri.serialized == text)
        #expect(!uri.description.contains("secret"))
    }
}
