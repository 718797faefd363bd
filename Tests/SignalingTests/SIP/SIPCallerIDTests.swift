@testable import Signaling
import Testing

/// Caller id and custom headers on our INVITE (written as docs/sip.md, "Caller id and custom
/// headers", says and read back by our own parser), their checks, and what a peer's INVITE says
/// about its caller.
@Suite struct SIPCallerIDTests {
    /// Our INVITE as the endpoint builds it (the same call `SIPCallSignalling` makes), with a
    /// display name that needs escaping, a caller number and two custom headers.
    @Test func ourInviteCarriesTheCallerIDAndTheHeaders() async throws {
        let endpoint = SIPEndpoint(server: try SIPServerAddress(parsing: "sip:127.0.0.1:5999"))
        var from = SIPAccount(user: "alice", domain: "parley.test", password: "alice-secret")
        let callerID = SIPCallerID(name: #"Ann "the ops" \ Lee"#, number: "+15551234")
        from.displayName = callerID.name
        let identity = try #require(try callerID.assertedIdentity(domain: from.domain))
        let custom = try SIPCustomHeaders.fields([CustomHeader(name: "X-Account", value: " 42 "), CustomHeader(name: "x-trace", value: "a;b=\"c\"")])
        let invite = await endpoint.outOfDialogRequest("INVITE", to: "sip:bob@parley.test", toHeader: "<sip:bob@parley.test>", from: from,
                                                       fromTag: "t1", callID: "c1", sequence: 1, extra: [identity] + custom)
        let text = invite.serializedText
        #expect(text.contains("\r\nFrom: \"Ann \\\"the ops\\\" \\\\ Lee\" <sip:alice@parley.test>;tag=t1\r\n"))
        #expect(text.contains("\r\nP-Asserted-Identity: \"Ann \\\"the ops\\\" \\\\ Lee\" <sip:+15551234@parley.test;user=phone>\r\n"))
        #expect(text.contains("\r\nX-Account: 42\r\nx-trace: a;b=\"c\"\r\n"))
        #expect(!text.contains("alice-secret"))

        let received = try SIPMessage.parse(invite.serialized)
        try received.validate()
        #expect(SIPCallerID(of: received) == SIPCallerID(name: #"Ann "the ops" \ Lee"#, number: "+15551234"))
        #expect(SIPCustomHeaders.extensions(of: received) == [CustomHeader(name: "X-Account", value: "42"), CustomHeader(name: "x-trace", value: "a;b=\"c\"")])
    }

    @Test func aNumberThatIsNotATelephoneNumberIsEscapedAndHasNoUserPhone() throws {
        let identity = try #require(try SIPCallerID(name: nil, number: "front desk#2").assertedIdentity(domain: "parley.test"))
        #expect(identity.value == "<sip:front%20desk%232@parley.test>")
        #expect(try SIPCallerID(name: "Ann", number: nil).assertedIdentity(domain: "parley.test") == nil)
        #expect(try SIPCallerID(name: "", number: "").assertedIdentity(domain: "parley.test") == nil)
    }

    @Test(arguments: [
        ("X Account", SIPHeaderError.badName("X Account")), ("X-Acc:ount", .badName("X-Acc:ount")), ("", .badName("")),
        ("X-Ä", .badName("X-Ä")), ("Via", .reserved("Via")), ("v", .reserved("Via")), ("CALL-ID", .reserved("Call-ID")),
        ("f", .reserved("From")), ("to", .reserved("To")), ("CSeq", .reserved("CSeq")), ("m", .reserved("Contact")),
        ("content-length", .reserved("Content-Length")), ("Max-Forwards", .reserved("Max-Forwards")),
        ("Proxy-Authorization", .reserved("Proxy-Authorization")), ("P-Asserted-Identity", .reserved("P-Asserted-Identity")),
    ])
    func aHeaderNameThatIsNotATokenOrThatTheStackWritesIsRefused(_ name: String, _ expected: SIPHeaderError) {
        #expect(throws: expected) { try SIPCustomHeaders.fields([CustomHeader(name: name, value: "1")]) }
    }

    @Test(arguments: ["1\r\nVia: SIP/2.0/UDP evil", "1\nX-B: 2", "1\r", "nul\u{0}", "del\u{7F}"])
    func aValueWithALineBreakOrAControlCharacterIsRefusedWithoutBeingQuoted(_ value: String) throws {
        let error = try #require(throws: SIPHeaderError.self) { try SIPCustomHeaders.fields([CustomHeader(name: "X-Account", value: value)]) }
        #expect(error == .badValue(name: "X-Account"))
        #expect(!error.description.contains(value))
        #expect(error.description.contains("X-Account"))
    }

    @Test func aTabInAValueAndAnEmptyValueAreFields() throws {
        #expect(try SIPCustomHeaders.fields([CustomHeader(name: "X-A", value: "1\t2"), CustomHeader(name: "X-B", value: "")]).map(\.value) == ["1\t2", ""])
    }

    @Test func aCallerIDWithALineBreakIsRefused() {
        #expect(throws: SIPHeaderError.badCallerName) { try SIPCallerID(name: "Ann\r\nVia: x", number: nil).check() }
        #expect(throws: SIPHeaderError.badCallerNumber) { try SIPCallerID(name: nil, number: "555\n1").check() }
        #expect(throws: SIPHeaderError.badCallerNumber) { try SIPCallerID(name: nil, number: "   ").assertedIdentity(domain: "parley.test") }
    }

    @Test func theReservedRefusalNamesTheReservedHeaders() {
        let text = SIPHeaderError.reserved("Via").description
        #expect(text.hasPrefix("header Via is written by the SIP stack"))
        #expect(text.contains("Call-ID, CSeq, Contact, Content-Length"))
    }

    /// A peer's INVITE: the asserted identity's number over From's user, From's display name;
    /// only the `X-` fields, in order and as written.
    @Test func aPeersInviteNamesItsCallerAndItsExtensionHeaders() throws {
        let invite = try SIPMessage.parse(SIPTestMessages.crlf("""
        INVITE sip:bob@parley.test SIP/2.0
        Via: SIP/2.0/UDP 192.0.2.2;branch=z9hG4bKx1
        From: "Carol \\"C\\" Ray" <sip:carol@parley.test>;tag=a
        To: <sip:bob@parley.test>
        Call-ID: x1
        CSeq: 1 INVITE
        P-Asserted-Identity: <tel:+4930123;phone-context=x>
        X-Account: 42
        Subject: not an extension
        x-trace:  folded
          value
        Content-Length: 0


        """))
        #expect(SIPCallerID(of: invite) == SIPCallerID(name: #"Carol "C" Ray"#, number: "+4930123"))
        #expect(SIPCustomHeaders.extensions(of: invite) == [CustomHeader(name: "X-Account", value: "42"), CustomHeader(name: "x-trace", value: "folded value")])
    }

    @Test func withoutAnAssertedIdentityTheNumberIsFromsUserUnescaped() throws {
        let invite = try SIPMessage.parse(SIPTestMessages.crlf("""
        INVITE sip:bob@parley.test SIP/2.0
        Via: SIP/2.0/UDP 192.0.2.2;branch=z9hG4bKx2
        f: <sip:%2B4930123@parley.test>;tag=a
        To: <sip:bob@parley.test>
        Call-ID: x2
        CSeq: 1 INVITE
        Content-Length: 0


        """))
        #expect(SIPCallerID(of: invite) == SIPCallerID(name: nil, number: "+4930123"))
        #expect(SIPCustomHeaders.extensions(of: invite).isEmpty)
    }
}
