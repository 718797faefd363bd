import Foundation
@testable import Signaling
import TestSupport
import Testing

/// An endpoint facing a peer that misbehaves, over a real UDP flow: garbage and oversized
/// messages are dropped and the endpoint goes on; the peer's requests are answered; an INVITE
/// nobody answers ends with a typed timeout within 64·T1.
@Suite(.leakChecked) struct SIPEndpointTests {
    static func options(branch: String) -> String {
        "OPTIONS sip:parley@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bK\(branch)\r\nMax-Forwards: 70\r\nFrom: <sip:proxy@parley.test>;tag=p1\r\nTo: <sip:parley@parley.test>\r\nCall-ID: ping-\(branch)\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n"
    }

    private func openEndpoint(to peer: LoopbackSIPPeer, timers: SIPTimers = SIPTimers()) async throws -> SIPEndpoint {
        let endpoint = SIPEndpoint(server: try SIPServerAddress(parsing: "sip:127.0.0.1:\(peer.port)"), timers: timers)
        try await endpoint.open()
        // The peer learns the endpoint's address from a first request, as a registrar does.
        let hello = Task { try await endpoint.request(try SIPMessage.parse(Array(Self.options(branch: "hello").utf8))) }
        let first = try SIPMessage.parse(Array(try peer.receive(within: 5).utf8))
        try peer.send(SIPMessage.response(to: first, status: 200, reason: "OK", toTag: "t").serializedText)
        _ = try await hello.value
        return endpoint
    }

    /// The next response, past any retransmission of the first request still queued.
    private func response(from peer: LoopbackSIPPeer) throws -> SIPMessage {
        for _ in 0..<20 {
            let message = try SIPMessage.parse(Array(try peer.receive(within: 5).utf8))
            if !message.isRequest { return message }
        }
        throw LoopbackPeerFailed(description: "no response arrived")
    }

    @Test func garbageAndOversizedMessagesAreDroppedAndThePeersPingStillAnswered() async throws {
        let peer = try LoopbackSIPPeer(datagram: true)
        let endpoint = try await openEndpoint(to: peer)
        try peer.send("\u{0}\u{1}garbage that is not SIP\r\n\r\n")
        let crowded = Self.options(branch: "crowded").replacingOccurrences(of: "Content-Length: 0\r\n", with: String(repeating: "X-Filler: x\r\n", count: 200) + "Content-Length: 0\r\n")
        try peer.send(crowded)
        let longLine = Self.options(branch: "long").replacingOccurrences(of: "Content-Length: 0\r\n", with: "X-Long: " + String(repeating: "y", count: 9_000) + "\r\nContent-Length: 0\r\n")
        try peer.send(longLine)
        try peer.send(Self.options(branch: "ping1"))
        let answer = try response(from: peer)
        #expect(answer.status == 200)
        #expect(try answer.callID() == "ping-ping1")
        #expect(answer.header(.allow) != nil)
        await endpoint.close()
    }

    @Test func aRequestWeCannotHandleIsAnswered501() async throws {
        let peer = try LoopbackSIPPeer(datagram: true)
        let endpoint = try await openEndpoint(to: peer)
        try peer.send(Self.options(branch: "msg").replacingOccurrences(of: "OPTIONS", with: "MESSAGE"))
        let answer = try response(from: peer)
        #expect(answer.status == 501)
        #expect(try answer.cseq().method == "MESSAGE")
        await endpoint.close()
    }

    @Test func anInviteNobodyAnswersEndsWithATimeoutWithinSixtyFourT1() async throws {
        let peer = try LoopbackSIPPeer(datagram: true)
        var timers = SIPTimers()
        timers.t1 = 0.02
        let endpoint = try await openEndpoint(to: peer, timers: timers)
        let invite = Self.options(branch: "inv").replacingOccurrences(of: "OPTIONS", with: "INVITE")
            .replacingOccurrences(of: "Max-Forwards", with: "Contact: <sip:parley@127.0.0.1>\r\nMax-Forwards")
        let started = ContinuousClock.now
        await #expect(throws: SIPRequestFailure.timedOut(after: .milliseconds(1280))) {
            _ = try await endpoint.request(try SIPMessage.parse(Array(invite.utf8)))
        }
        #expect(ContinuousClock.now - started < .seconds(4))
        await endpoint.close()
    }
}
