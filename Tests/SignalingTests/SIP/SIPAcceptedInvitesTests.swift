@testable import Signaling
import Testing

/// What a user agent does with a 2xx after the first of its INVITE (RFC 3261 §13.2.2.4), decided
/// without I/O: the same ACK again for the dialog it acknowledged, a fork for another To tag
/// (once), nothing before the ACK is sent, after a failure or once Timer M's 64·T1 has passed.
@Suite struct SIPAcceptedInvitesTests {
    static let invite = "INVITE sip:bob@parley.test SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:5062;branch=z9hG4bKfirst;rport\r\nMax-Forwards: 70\r\n"
        + "From: <sip:alice@parley.test>;tag=a1\r\nTo: <sip:bob@parley.test>\r\nCall-ID: accepted-1\r\nCSeq: 7 INVITE\r\n"
        + "Contact: <sip:alice@127.0.0.1:5062>\r\nContent-Length: 0\r\n\r\n"

    static func response(_ status: Int, tag: String) throws -> SIPMessage {
        let text = "SIP/2.0 \(status) Whatever\r\nVia: SIP/2.0/UDP 127.0.0.1:5062;branch=z9hG4bKfirst;rport\r\n"
            + "From: <sip:alice@parley.test>;tag=a1\r\nTo: <sip:bob@parley.test>;tag=\(tag)\r\nCall-ID: accepted-1\r\nCSeq: 7 INVITE\r\n"
            + "Contact: <sip:bob@127.0.0.1:5070>\r\nContent-Length: 0\r\n\r\n"
        return try SIPMessage.parse(Array(text.utf8))
    }

    static func ack(tag: String, sequence: Int = 7, callID: String = "accepted-1") throws -> SIPMessage {
        let text = "ACK sip:bob@127.0.0.1:5070 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:5062;branch=z9hG4bKack\(tag);rport\r\nMax-Forwards: 70\r\n"
            + "From: <sip:alice@parley.test>;tag=a1\r\nTo: <sip:bob@parley.test>;tag=\(tag)\r\nCall-ID: \(callID)\r\nCSeq: \(sequence) ACK\r\n"
            + "Content-Length: 0\r\n\r\n"
        return try SIPMessage.parse(Array(text.utf8))
    }

    let key = SIPTransactionKey(branch: "z9hG4bKfirst", method: "INVITE")

    @Test func theSameACKAnswersEachRepeatOfTheAcknowledgedTwoHundred() throws {
        var invites = SIPAcceptedInvites(lifetime: 32)
        var answer: SIPAcceptedInvites.Repeat
        invites.sending(try SIPMessage.parse(Array(Self.invite.utf8)), key: key)
        invites.finished(try Self.response(200, tag: "b1"), key: key, now: 1)
        // Before its owner acknowledges the first 2xx, a repeat is the owner's to answer.
        answer = invites.repeated(try Self.response(200, tag: "b1"), key: key)
        #expect(answer == .nothing)
        // An ACK of another INVITE (CSeq, Call-ID) is not taken for it.
        invites.acknowledging(try Self.ack(tag: "b1", sequence: 8))
        invites.acknowledging(try Self.ack(tag: "b1", callID: "other"))
        answer = invites.repeated(try Self.response(200, tag: "b1"), key: key)
        #expect(answer == .nothing)
        invites.acknowledging(try Self.ack(tag: "b1"))
        answer = invites.repeated(try Self.response(200, tag: "b1"), key: key)
        #expect(answer == .acknowledgeAgain(try Self.ack(tag: "b1")))
        answer = invites.repeated(try Self.response(200, tag: "b1"), key: key)
        #expect(answer == .acknowledgeAgain(try Self.ack(tag: "b1")))
    }

    @Test func anotherTagIsAForkOnceAndThenItsOwnACKAgain() throws {
        var invites = SIPAcceptedInvites(lifetime: 32)
        var answer: SIPAcceptedInvites.Repeat
        let invite = try SIPMessage.parse(Array(Self.invite.utf8))
        invites.sending(invite, key: key)
        invites.finished(try Self.response(200, tag: "b1"), key: key, now: 1)
        answer = invites.repeated(try Self.response(200, tag: "b2"), key: key)
        #expect(answer == .fork(invite: invite))
        // Its repeat before the fork's ACK is out: not a second fork (no second BYE).
        answer = invites.repeated(try Self.response(200, tag: "b2"), key: key)
        #expect(answer == .nothing)
        invites.acknowledging(try Self.ack(tag: "b2"))
        answer = invites.repeated(try Self.response(200, tag: "b2"), key: key)
        #expect(answer == .acknowledgeAgain(try Self.ack(tag: "b2")))
    }

    @Test func failuresTimeoutsAndOldAnswersAreForgotten() throws {
        let invite = try SIPMessage.parse(Array(Self.invite.utf8))
        var invites = SIPAcceptedInvites(lifetime: 32)
        var answer: SIPAcceptedInvites.Repeat
        invites.sending(invite, key: key)
        invites.finished(try Self.response(486, tag: "b1"), key: key, now: 1)
        #expect(invites.count == 0)
        answer = invites.repeated(try Self.response(200, tag: "b2"), key: key)
        #expect(answer == .nothing)

        invites.sending(invite, key: key)
        invites.forget(key)
        #expect(invites.count == 0)

        // Accepted at 1 s; the next INVITE's answer at 40 s is past the first's 32 s.
        invites.sending(invite, key: key)
        invites.finished(try Self.response(200, tag: "b1"), key: key, now: 1)
        let later = SIPTransactionKey(branch: "z9hG4bKlater", method: "INVITE")
        invites.sending(invite, key: later)
        invites.finished(try Self.response(200, tag: "c1"), key: later, now: 40)
        #expect(invites.count == 1)
        answer = invites.repeated(try Self.response(200, tag: "b2"), key: key)
        #expect(answer == .nothing)
        // A request that is not an INVITE is not remembered.
        invites.sending(try Self.ack(tag: "b1"), key: SIPTransactionKey(branch: "z9hG4bKack", method: "ACK"))
        #expect(invites.count == 1)
    }
}
