@testable import Parley
import Signaling
import TestSupport
import Testing

/// A phone keeps at most 64 offered calls nobody has taken from `incomingCalls`: past that the
/// oldest is refused 486 Busy Here, not left ringing where nothing will ever answer it.
@Suite(.serialized) struct SIPUntakenOffersTests {
    static func invite(_ number: Int) -> String {
        let sdp = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 4000 UDP/TLS/RTP/SAVPF 111\r\na=ice-ufrag:theirs\r\na=setup:actpass\r\n"
        return "INVITE sip:alice@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bKuntaken\(number)\r\nMax-Forwards: 70\r\n"
            + "From: <sip:bob@parley.test>;tag=b\(number)\r\nTo: <sip:alice@parley.test>\r\nCall-ID: untaken-\(number)\r\nCSeq: 1 INVITE\r\n"
            + "Contact: <sip:bob@127.0.0.1:5060>\r\nContent-Type: application/sdp\r\nContent-Length: \(sdp.utf8.count)\r\n\r\n\(sdp)"
    }

    @Test func theOldestOfSixtyFiveUntakenOffersIsRefusedBusy() async throws {
        let server = try SIPHostileServerTests.Server(datagram: true)
        let phone = try await server.registered()
        for number in 1...65 { try server.send(Self.invite(number)) }
        var refusal: SIPMessage?
        for _ in 0..<400 where refusal == nil {
            let message = try SIPMessage.parse(Array(try server.peer.receive(within: 10).utf8))
            if let status = message.status, status >= 300 { refusal = message }
        }
        let refused = try #require(refusal)
        #expect(refused.status == 486)
        #expect(try refused.callID() == "untaken-1")
        try await waitUntil("the refused call is forgotten, the other 64 still ringing") { await phone.activeCalls.count == 64 }
        try await server.close(phone)
    }
}
