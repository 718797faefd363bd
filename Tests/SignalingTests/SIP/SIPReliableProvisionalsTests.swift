@testable import Signaling
import Testing

/// RFC 3262's bookkeeping without I/O, on inputs a hostile or broken peer sends: a 1xx without
/// `Require: 100rel`, without a number in RSeq, with RSeq 0 or a gap; a PRACK whose RAck is
/// malformed, names another RSeq, CSeq or method, or comes twice; and the RSeq after 2³¹ - 1.
@Suite struct SIPReliableProvisionalsTests {
    static let invite = SIPAcceptedInvitesTests.invite

    static func provisional(_ status: Int = 183, tag: String = "b1", fields: String) throws -> SIPMessage {
        let text = "SIP/2.0 \(status) Progress\r\nVia: SIP/2.0/UDP 127.0.0.1:5062;branch=z9hG4bKfirst;rport\r\n"
            + "From: <sip:alice@parley.test>;tag=a1\r\nTo: <sip:bob@parley.test>;tag=\(tag)\r\nCall-ID: accepted-1\r\nCSeq: 7 INVITE\r\n"
            + "Contact: <sip:bob@127.0.0.1:5070>\r\n\(fields)Content-Length: 0\r\n\r\n"
        return try SIPMessage.parse(Array(text.utf8))
    }

    static func prack(rack: String) throws -> SIPMessage {
        let text = "PRACK sip:alice@127.0.0.1:5062 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bKprack\r\nMax-Forwards: 70\r\n"
            + "From: <sip:bob@parley.test>;tag=b1\r\nTo: <sip:alice@parley.test>;tag=a1\r\nCall-ID: accepted-1\r\nCSeq: 8 PRACK\r\n"
            + "RAck: \(rack)\r\nContent-Length: 0\r\n\r\n"
        return try SIPMessage.parse(Array(text.utf8))
    }

    @Test func onlyAReliableProvisionalWithTheNextRSeqIsPRACKed() throws {
        var state = SIPReliableProvisionals()
        let invite = try SIPMessage.parse(Array(Self.invite.utf8))
        #expect(state.prack(for: try Self.provisional(fields: "RSeq: 4\r\n"), invite: invite) == nil)
        #expect(state.prack(for: try Self.provisional(fields: "Require: 100rel\r\n"), invite: invite) == nil)
        #expect(state.prack(for: try Self.provisional(fields: "Require: 100rel\r\nRSeq: four\r\n"), invite: invite) == nil)
        #expect(state.prack(for: try Self.provisional(fields: "Require: 100rel\r\nRSeq: 0\r\n"), invite: invite) == nil)
        #expect(state.prack(for: try Self.provisional(100, fields: "Require: 100rel\r\nRSeq: 4\r\n"), invite: invite) == nil)

        let first = try #require(state.prack(for: try Self.provisional(fields: "Require: timer, 100REL\r\nRSeq: 4\r\n"), invite: invite))
        #expect(first.rack == "4 7 INVITE")
        #expect(first.sequence == 8)
        #expect(state.prack(for: try Self.provisional(fields: "Require: 100rel\r\nRSeq: 4\r\n"), invite: invite) == nil)
        #expect(state.prack(for: try Self.provisional(fields: "Require: 100rel\r\nRSeq: 6\r\n"), invite: invite) == nil)
        #expect(state.prack(for: try Self.provisional(fields: "Require: 100rel\r\nRSeq: 5\r\n"), invite: invite)?.sequence == 9)
        // Another fork's early dialog counts its own RSeq.
        #expect(state.prack(for: try Self.provisional(tag: "c1", fields: "Require: 100rel\r\nRSeq: 90\r\n"), invite: invite)?.rack == "90 7 INVITE")
        #expect(state.highestSequence == 10)
    }

    @Test func onlyAPRACKNamingTheUnacknowledgedProvisionalAcknowledgesIt() throws {
        var state = SIPReliableProvisionals(firstRSeq: (1 << 31) - 1)
        let invite = try SIPMessage.parse(Array(Self.invite.utf8))
        #expect(!state.acknowledge(try Self.prack(rack: "\((1 << 31) - 1) 7 INVITE")))
        let reliable = state.reliable(try Self.provisional(fields: ""), to: invite)
        #expect(reliable.header("Require")?.value == "100rel")
        #expect(reliable.header("RSeq")?.value == "2147483647")
        for rack in ["", "2147483647 7", "2147483647 7 INVITE x", "two 7 INVITE", "2147483646 7 INVITE", "2147483647 6 INVITE", "2147483647 7 BYE"] {
            #expect(!state.acknowledge(try Self.prack(rack: rack)), "RAck: \(rack)")
        }
        #expect(state.acknowledge(try Self.prack(rack: "2147483647  7 INVITE")))
        #expect(state.unacknowledged == nil)
        #expect(!state.acknowledge(try Self.prack(rack: "2147483647 7 INVITE")))
        // The RSeq after 2³¹ - 1 starts again at 1.
        #expect(state.reliable(try Self.provisional(fields: ""), to: invite).header("RSeq")?.value == "1")
    }

    @Test func anInviteOffersOrRequires100rel() throws {
        let plain = try SIPMessage.parse(Array(Self.invite.utf8))
        let supported = try SIPMessage.parse(Array(Self.invite.replacingOccurrences(of: "Max-Forwards", with: "Supported: timer, 100rel\r\nMax-Forwards").utf8))
        let required = try SIPMessage.parse(Array(Self.invite.replacingOccurrences(of: "Max-Forwards", with: "Require: 100rel\r\nMax-Forwards").utf8))
        #expect(!SIPReliableProvisionals.offered(by: plain))
        #expect(SIPReliableProvisionals.offered(by: supported) && !SIPReliableProvisionals.required(by: supported))
        #expect(SIPReliableProvisionals.offered(by: required) && SIPReliableProvisionals.required(by: required))
    }
}
