@testable import Parley
import Logging
import Signaling
import TestSupport
import Testing

/// Our 200 to an INVITE over UDP is ours to repeat until the caller's ACK (RFC 3261 §13.3.1.4):
/// the server transaction sends a 2xx once. A caller that does not acknowledge at first gets
/// the 200 again, and its late ACK completes the answer.
@Suite(.serialized) struct SIPAnswerRepetitionTests {
    static let invite = "INVITE sip:bob@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bKcaller1\r\nMax-Forwards: 70\r\n"
        + "From: <sip:alice@parley.test>;tag=a1\r\nTo: <sip:bob@parley.test>\r\nCall-ID: repeat-1\r\nCSeq: 1 INVITE\r\n"
        + "Contact: <sip:alice@127.0.0.1:5060>\r\nContent-Type: application/sdp\r\nContent-Length: 4\r\n\r\nv=0\n"
    static let ack = "ACK sip:bob@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bKcaller2\r\nMax-Forwards: 70\r\n"
        + "From: <sip:alice@parley.test>;tag=a1\r\nTo: <sip:bob@parley.test>;tag=TAG\r\nCall-ID: repeat-1\r\nCSeq: 1 ACK\r\nContent-Length: 0\r\n\r\n"

    @Test func theAnswerIsRepeatedOverUDPUntilTheACK() async throws {
        let peer = try LoopbackSIPPeer(datagram: true)
        let endpoint = try await SIPEndpoint.opened(toLoopback: peer)

        var requests = endpoint.incoming.makeAsyncIterator()
        try peer.send(Self.invite)
        guard case .request(let key, let request) = try #require(await requests.next()) else {
            Issue.record("the INVITE was not handed to the endpoint's owner")
            return
        }
        let account = SIPAccount(user: "bob", domain: "parley.test", password: "bob-secret")
        let signalling = SIPCallSignalling(callID: "repeat-1", endpoint: endpoint, account: account, logger: Logger(label: "test"), onClose: { _ in })
        await signalling.offer(request, key: key)
        let answering = Task { try await signalling.answer(callID: "repeat-1", sdp: "v=0\n", trickle: false) }
        var oks: [SIPMessage] = []
        for _ in 0..<20 where oks.count < 3 {
            let message = try SIPMessage.parse(Array(try peer.receive(within: 5).utf8))
            if message.status == 200 { oks.append(message) }
        }
        #expect(oks.count == 3, "the 200 was sent \(oks.count) times before the ACK")
        let tag = try #require(try oks[0].to().tag)
        try peer.send(Self.ack.replacingOccurrences(of: "TAG", with: tag))
        // The endpoint hands the ACK of a 2xx to its owner, which gives it to the call (SIPPhone).
        guard case .ack(let ack) = try #require(await requests.next()) else {
            Issue.record("the ACK was not handed to the endpoint's owner")
            return
        }
        await signalling.receivedACK(ack)
        try await answering.value
        await signalling.close()
        await endpoint.close()
    }

    static let options = "OPTIONS sip:parley@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bKhello\r\nMax-Forwards: 70\r\n"
        + "From: <sip:proxy@parley.test>;tag=p1\r\nTo: <sip:parley@parley.test>\r\nCall-ID: ping-hello\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n"
}
