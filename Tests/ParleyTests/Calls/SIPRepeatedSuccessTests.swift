@testable import Parley
import Signaling
import TestSupport
import Testing

/// RFC 3261 §13.2.2.4 over a real UDP flow, after the first 2xx to our INVITE: a far end whose
/// first ACK was lost repeats its 200 and gets the same ACK again; a second fork's 200 (another
/// To tag) is acknowledged and ended with BYE, once, its own repeats getting its ACK again.
@Suite(.serialized) struct SIPRepeatedSuccessTests {
    /// The far end's 200, from the fork tagged `tag`, to the INVITE as it arrived (its Via).
    static func ok(to invite: SIPMessage, tag: String) throws -> String {
        let via = try #require(invite.header(.via)).value
        return "SIP/2.0 200 OK\r\nVia: \(via)\r\nFrom: <sip:alice@parley.test>;tag=a1\r\nTo: <sip:bob@parley.test>;tag=\(tag)\r\n"
            + "Call-ID: fork-1\r\nCSeq: 1 INVITE\r\nContact: <sip:bob-\(tag)@127.0.0.1:5070>\r\nContent-Length: 0\r\n\r\n"
    }

    /// The next `method` request from the endpoint, past the INVITE's retransmissions; the other
    /// requests read before it are added to `others`.
    static func next(_ method: String, from peer: LoopbackSIPPeer, others: inout [SIPMessage]) throws -> SIPMessage {
        for _ in 0..<20 {
            let message = try SIPMessage.parse(Array(try peer.receive(within: 5).utf8))
            if message.method == method { return message }
            if message.method != "INVITE" { others.append(message) }
        }
        throw LoopbackPeerFailed(description: "no \(method) arrived")
    }

    @Test func aRepeatedTwoHundredIsAcknowledgedAgainAndASecondForkIsEnded() async throws {
        let peer = try LoopbackSIPPeer(datagram: true)
        let endpoint = try await SIPEndpoint.opened(toLoopback: peer)
        let account = SIPAccount(user: "alice", domain: "parley.test", password: "alice-secret")
        let invite = await endpoint.outOfDialogRequest("INVITE", to: "sip:bob@parley.test", toHeader: "<sip:bob@parley.test>", from: account,
                                                       fromTag: "a1", callID: "fork-1", sequence: 1)
        let inviting = Task { try await endpoint.request(invite) }
        var others: [SIPMessage] = []
        let arrived = try Self.next("INVITE", from: peer, others: &others)
        try peer.send(try Self.ok(to: arrived, tag: "b1"))
        let accepted = try await inviting.value
        var dialog = try SIPDialog(uacRequest: invite, response: accepted)
        dialog.confirm()
        await endpoint.sendOutsideTransaction(dialog.request("ACK", via: await endpoint.newVia(), sequence: 1))
        let ack = try Self.next("ACK", from: peer, others: &others)
        #expect(try ack.to().tag == "b1")

        // The ACK was lost: the far end's 200 again gets it again, byte for byte.
        try peer.send(try Self.ok(to: arrived, tag: "b1"))
        #expect(try Self.next("ACK", from: peer, others: &others).serializedText == ack.serializedText)

        // A second fork answers: its dialog is acknowledged, then ended.
        try peer.send(try Self.ok(to: arrived, tag: "b2"))
        let forkACK = try Self.next("ACK", from: peer, others: &others)
        #expect(try forkACK.to().tag == "b2")
        #expect(try forkACK.cseq() == SIPCSeq(number: 1, method: "ACK"))
        #expect(forkACK.requestURI == "sip:bob-b2@127.0.0.1:5070")
        let bye = try Self.next("BYE", from: peer, others: &others)
        #expect(try bye.to().tag == "b2")
        #expect(try bye.from().tag == "a1")
        #expect(try bye.cseq() == SIPCSeq(number: 2, method: "BYE"))
        #expect(bye.requestURI == "sip:bob-b2@127.0.0.1:5070")
        try peer.send(SIPMessage.response(to: bye, status: 200, reason: "OK").serializedText)

        // The fork repeats its 200: its ACK again, and no second BYE.
        try peer.send(try Self.ok(to: arrived, tag: "b2"))
        #expect(try Self.next("ACK", from: peer, others: &others).serializedText == forkACK.serializedText)
        let byeBranches = Set(others.filter { $0.method == "BYE" }.compactMap { try? $0.topVia().branch })
        #expect(byeBranches.count <= 1, "the fork was sent \(byeBranches.count) BYEs")
        #expect(others.allSatisfy { $0.method == "BYE" }, "unexpected: \(others.compactMap(\.method))")
        await endpoint.close()
    }
}
