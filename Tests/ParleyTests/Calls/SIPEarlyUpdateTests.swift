@testable import Parley
import Logging
import Signaling
import TestSupport
import Testing

/// An UPDATE before the call is answered (RFC 3311 §5.2), in the early dialog, over a real UDP
/// flow. Offered a call: an UPDATE without an offer is answered 200; one with an offer, while the
/// INVITE's offer awaits our answer, 500 with a Retry-After of 0-10 s; another tag, 481. Placing
/// a call: an offer before the far end answered ours is 491; once its 183 carried its
/// description (the answer, RFC 3261 §13.2.1), a hold offered is answered 200 recvonly from our
/// description, and an offer with new ICE credentials 488.
extension SIPInDialogRequestTests {
    @Test func anUpdateWhileAnOfferedCallRingsIsAnsweredOrRefusedAsRFC3311Says() async throws {
        let peer = try LoopbackSIPPeer(datagram: true)
        let endpoint = try await SIPEndpoint.opened(toLoopback: peer)
        var requests = endpoint.incoming.makeAsyncIterator()
        let signalling = try await offered(by: peer, on: endpoint, from: &requests)
        await signalling.ringing(callID: "in-dialog-1")
        var ringing: SIPMessage?
        for _ in 0..<10 where ringing == nil {
            let message = try SIPMessage.parse(Array(try peer.receive(within: 5).utf8))
            if message.status == 180 { ringing = message }
        }
        let rang = try #require(ringing)
        let tag = try #require(try rang.to().tag)

        try await deliver(Self.request("UPDATE", sequence: 2, tag: tag), by: peer, to: signalling, from: &requests)
        let refreshed = try response(from: peer, to: 2)
        #expect(refreshed.status == 200)
        #expect(refreshed.header(.contact) != nil)
        #expect(refreshed.body.isEmpty)

        try await deliver(Self.request("UPDATE", sequence: 3, tag: tag, type: "application/sdp", body: Self.theirs), by: peer, to: signalling, from: &requests)
        let pending = try response(from: peer, to: 3)
        #expect(pending.status == 500)
        let retryAfter = try #require(pending.header("Retry-After"))
        let retry = try #require(Int(retryAfter.value))
        #expect((0...10).contains(retry))

        try await deliver(Self.request("UPDATE", sequence: 4, tag: "someone-else"), by: peer, to: signalling, from: &requests)
        #expect(try response(from: peer, to: 4).status == 481)
        await signalling.close()
        await endpoint.close()
    }

    /// The far end's UPDATE in the early dialog of our INVITE (Call-ID and tags from it).
    static func earlyUpdate(to invite: SIPMessage, sequence: Int, body: String) throws -> String {
        let callID = try invite.callID()
        let ourTag = try #require(try invite.from().tag)
        return "UPDATE sip:alice@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bKearly\(sequence)\r\nMax-Forwards: 70\r\n"
            + "From: <sip:bob@parley.test>;tag=b1\r\nTo: <sip:alice@parley.test>;tag=\(ourTag)\r\nCall-ID: \(callID)\r\nCSeq: \(sequence) UPDATE\r\n"
            + "Contact: <sip:bob@127.0.0.1:5060>\r\nContent-Type: application/sdp\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    @Test func anUpdateWhileOurCallRingsIsAnsweredOnceTheFarEndAnswered() async throws {
        let peer = try LoopbackSIPPeer(datagram: true)
        let endpoint = try await SIPEndpoint.opened(toLoopback: peer)
        var requests = endpoint.incoming.makeAsyncIterator()
        let account = SIPAccount(user: "alice", domain: "parley.test", password: "alice-secret")
        let signalling = SIPCallSignalling(callID: "early-uac-1", endpoint: endpoint, account: account, logger: Logger(label: "test"), onClose: { _ in })
        _ = try await signalling.invite(callID: "early-uac-1", destination: "bob", options: DialOptions(), sdp: Self.ours, trickle: false)
        var invite: SIPMessage?
        for _ in 0..<10 where invite == nil {
            let message = try SIPMessage.parse(Array(try peer.receive(within: 5).utf8))
            if message.method == "INVITE" { invite = message }
        }
        let sent = try #require(invite)

        try await deliver(try Self.earlyUpdate(to: sent, sequence: 1, body: Self.theirs), by: peer, to: signalling, from: &requests)
        #expect(try response(from: peer, to: 1).status == 491)

        let early = SIPMessage.response(to: sent, status: 183, reason: "Session Progress", toTag: "b1",
                                        headers: [SIPHeader(.contact, "<sip:bob@127.0.0.1:5060>"), SIPHeader(.contentType, "application/sdp")],
                                        body: Array(Self.theirs.utf8))
        try peer.send(early.serializedText)
        try await waitUntil("the 183's description is taken as the answer") { await signalling.remoteSDP != nil }

        let hold = Self.theirs.replacingOccurrences(of: "a=setup:actpass\r\n", with: "a=setup:actpass\r\na=sendonly\r\n")
        try await deliver(try Self.earlyUpdate(to: sent, sequence: 2, body: hold), by: peer, to: signalling, from: &requests)
        let held = try response(from: peer, to: 2)
        #expect(held.status == 200)
        #expect(SIPSessionRefresh.direction(of: String(decoding: held.body, as: UTF8.self)) == .recvonly)
        #expect(SIPSessionRefresh.attribute("ice-ufrag", in: String(decoding: held.body, as: UTF8.self)) == "ours")

        let restart = Self.theirs.replacingOccurrences(of: "ice-ufrag:theirs", with: "ice-ufrag:moved")
        try await deliver(try Self.earlyUpdate(to: sent, sequence: 3, body: restart), by: peer, to: signalling, from: &requests)
        #expect(try response(from: peer, to: 3).status == 488)
        await signalling.close()
        await endpoint.close()
    }
}
