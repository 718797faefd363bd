@testable import Parley
import Logging
import Signaling
import TestSupport
import Testing

/// Reliable provisional responses (RFC 3262) over a real UDP flow, both roles. Offered a call by
/// a caller that supports 100rel: our early media's 183 says `Require: 100rel` with an RSeq and
/// comes again until its PRACK; a PRACK naming another RSeq is answered 481, the right one 200;
/// an UPDATE's offer after it is answered. A caller that requires 100rel gets our 180 reliably
/// too, and when it never PRACKs, no 200 but a 500 after 64·T1, and the call ends. Placing a call: our INVITE says
/// `Supported: 100rel`, each reliable 1xx is PRACKed once in its early dialog, a repeated one not,
/// and the BYE after the answer goes above the PRACKs' CSeq.
extension SIPInDialogRequestTests {
    /// The next message from the peer that `matches`, skipping others (100 Trying, repetitions).
    func next(from peer: LoopbackSIPPeer, _ matches: (SIPMessage) throws -> Bool) throws -> SIPMessage {
        for _ in 0..<30 {
            let message = try SIPMessage.parse(Array(try peer.receive(within: 5).utf8))
            if try matches(message) { return message }
        }
        throw LoopbackPeerFailed(description: "the awaited message did not come")
    }

    @Test func ourEarlyMediaIsSentReliablyUntilItsPRACK() async throws {
        let peer = try LoopbackSIPPeer(datagram: true)
        let endpoint = try await SIPEndpoint.opened(toLoopback: peer)
        var requests = endpoint.incoming.makeAsyncIterator()
        let signalling = try await offered(by: peer, on: endpoint, with: "Supported: 100rel\r\n", from: &requests)
        try await signalling.earlyMedia(callID: "in-dialog-1", sdp: Self.ours, trickle: false)

        let progress = try next(from: peer) { $0.status == 183 }
        #expect(progress.header("Require")?.value == "100rel")
        let rseq = try #require(progress.header("RSeq").flatMap { UInt32($0.value) })
        let tag = try #require(try progress.to().tag)
        let again = try next(from: peer) { $0.status == 183 }
        #expect(again.header("RSeq")?.value == String(rseq))

        let prack = { (sequence: Int, rack: String) in
            Self.request("PRACK", sequence: sequence, tag: tag).replacingOccurrences(of: "Contact:", with: "RAck: \(rack)\r\nContact:")
        }
        try await deliver(prack(2, "\(rseq &+ 1) 1 INVITE"), by: peer, to: signalling, from: &requests)
        #expect(try response(from: peer, to: 2).status == 481)

        try await deliver(prack(3, "\(rseq) 1 INVITE"), by: peer, to: signalling, from: &requests)
        #expect(try response(from: peer, to: 3).status == 200)

        // The first offer and answer are done: an UPDATE's offer is answered (RFC 3311 §5.1).
        let hold = Self.theirs.replacingOccurrences(of: "a=setup:actpass\r\n", with: "a=setup:actpass\r\na=sendonly\r\n")
        try await deliver(Self.request("UPDATE", sequence: 4, tag: tag, type: "application/sdp", body: hold), by: peer, to: signalling, from: &requests)
        let held = try response(from: peer, to: 4)
        #expect(held.status == 200)
        #expect(SIPSessionRefresh.direction(of: String(decoding: held.body, as: UTF8.self)) == .recvonly)

        let answering = Task { try await signalling.answer(callID: "in-dialog-1", sdp: Self.ours, trickle: false) }
        let ok = try response(from: peer, to: 1)
        #expect(ok.status == 200)
        #expect(ok.header("RSeq") == nil)
        await signalling.receivedACK(ok)
        try await answering.value
        await signalling.close()
        await endpoint.close()
    }

    @Test func aReliableProvisionalResponseNeverAcknowledgedEndsTheCall() async throws {
        let peer = try LoopbackSIPPeer(datagram: true)
        let endpoint = try await SIPEndpoint.opened(toLoopback: peer)
        var requests = endpoint.incoming.makeAsyncIterator()
        let signalling = try await offered(by: peer, on: endpoint, with: "Require: 100rel\r\n", from: &requests)
        // Required, even the 180 is reliable; the 183 would wait for its PRACK, which never comes.
        await signalling.ringing(callID: "in-dialog-1")
        let ringing = try next(from: peer) { $0.status == 180 }
        #expect(ringing.header("Require")?.value == "100rel")
        // Our answer waits for the PRACK (RFC 3262 §3), and fails with the call.
        let answering = Task { try await signalling.answer(callID: "in-dialog-1", sdp: Self.ours, trickle: false) }
        var repeats = 0
        let refused = try next(from: peer) { message in
            if message.status == 180 { repeats += 1 }
            return (message.status ?? 0) >= 200
        }
        #expect(refused.status == 500)
        #expect(repeats >= 3)
        #expect(await signalling.ended)
        await #expect(throws: ParleyError.self) { try await answering.value }
        await signalling.close()
        await endpoint.close()
    }

    @Test func ourCallPRACKsEachReliableProvisionalOnce() async throws {
        let peer = try LoopbackSIPPeer(datagram: true)
        let endpoint = try await SIPEndpoint.opened(toLoopback: peer)
        let account = SIPAccount(user: "alice", domain: "parley.test", password: "alice-secret")
        let signalling = SIPCallSignalling(callID: "prack-uac-1", endpoint: endpoint, account: account, logger: Logger(label: "test"), onClose: { _ in })
        _ = try await signalling.invite(callID: "prack-uac-1", destination: "bob", options: DialOptions(), sdp: Self.ours, trickle: false)
        let invite = try next(from: peer) { $0.method == "INVITE" }
        #expect(invite.values(.supported).contains { $0.value == "100rel" })

        let contact = SIPHeader(.contact, "<sip:bob@127.0.0.1:5070>")
        let reliable = { (status: Int, rseq: Int, sdp: Bool) in
            SIPMessage.response(to: invite, status: status, reason: "Progress", toTag: "b1",
                                headers: [contact, SIPHeader("Require", "100rel"), SIPHeader("RSeq", String(rseq))]
                                    + (sdp ? [SIPHeader(.contentType, "application/sdp")] : []),
                                body: sdp ? Array(Self.theirs.utf8) : [])
        }
        try peer.send(reliable(183, 7, true).serializedText)
        let first = try next(from: peer) { $0.method == "PRACK" }
        #expect(first.header("RAck")?.value == "7 1 INVITE")
        #expect(try first.cseq().number == 2)
        #expect(try first.to().tag == "b1")
        #expect(first.requestURI == "sip:bob@127.0.0.1:5070")
        try peer.send(SIPMessage.response(to: first, status: 200, reason: "OK", toTag: "b1").serializedText)
        #expect(await signalling.remoteSDP == Self.theirs)

        // The 183 again (our PRACK was not needed again) and a gap (RSeq 9) get none; RSeq 8 does.
        try peer.send(reliable(183, 7, true).serializedText)
        try peer.send(reliable(180, 9, false).serializedText)
        try peer.send(reliable(180, 8, false).serializedText)
        let second = try next(from: peer) { $0.method == "PRACK" }
        #expect(second.header("RAck")?.value == "8 1 INVITE")
        #expect(try second.cseq().number == 3)
        try peer.send(SIPMessage.response(to: second, status: 200, reason: "OK", toTag: "b1").serializedText)

        try peer.send(SIPMessage.response(to: invite, status: 200, reason: "OK", toTag: "b1",
                                          headers: [contact, SIPHeader(.contentType, "application/sdp")], body: Array(Self.theirs.utf8)).serializedText)
        let ack = try next(from: peer) { $0.method == "ACK" }
        #expect(try ack.cseq().number == 1)
        // Hanging up sends BYE above both PRACKs (RFC 3261 §12.2.1.1).
        let hangingUp = Task { await signalling.hangup(callID: "prack-uac-1", cause: .normalClearing) }
        let bye = try next(from: peer) { $0.method == "BYE" }
        #expect(try bye.cseq().number == 4)
        try peer.send(SIPMessage.response(to: bye, status: 200, reason: "OK", toTag: "b1").serializedText)
        await hangingUp.value
        await signalling.close()
        await endpoint.close()
    }
}
