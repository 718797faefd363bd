@testable import Parley
import Logging
import Signaling
import TestSupport
import Testing

/// The requests a peer sends inside an answered SIP call (what baresip and linphone send,
/// docs/sip.md "Tested against"): a re-INVITE that holds is answered 200 with our description
/// made recvonly (repeated over UDP until its ACK), an offerless UPDATE refreshes with 200, INFO carrying a key is taken with 200
/// and one of another type refused 415, and a request whose CSeq does not rise is answered 500;
/// our digits go out as one INFO each, and our hold as a re-INVITE whose 200 we acknowledge (the
/// peer's re-INVITE crossing it answered 491); an ICE restart nobody can take is answered 488.
@Suite(.serialized) struct SIPInDialogRequestTests {
    static let ours = "v=0\r\no=- 7 3 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=ice-ufrag:ours\r\na=setup:active\r\na=sendrecv\r\n"
    static let theirs = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 4000 UDP/TLS/RTP/SAVPF 111\r\na=ice-ufrag:theirs\r\na=setup:actpass\r\n"

    /// A request of the caller's in call `in-dialog-1`; `tag` is our To tag once the call is answered.
    static func request(_ method: String, sequence: Int, tag: String?, type: String? = nil, body: String = "") -> String {
        let to = tag.map { "<sip:bob@parley.test>;tag=\($0)" } ?? "<sip:bob@parley.test>"
        return "\(method) sip:bob@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bKdialog\(method)\(sequence)\r\n"
            + "Max-Forwards: 70\r\nFrom: <sip:alice@parley.test>;tag=a1\r\nTo: \(to)\r\nCall-ID: in-dialog-1\r\n"
            + "CSeq: \(sequence) \(method)\r\nContact: <sip:alice@127.0.0.1:5060>\r\n"
            + (type.map { "Content-Type: \($0)\r\n" } ?? "") + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    @Test func requestsInsideAnAnsweredCallAreAnswered() async throws {
        let peer = try LoopbackSIPPeer(datagram: true)
        let endpoint = try await SIPEndpoint.opened(toLoopback: peer)

        var requests = endpoint.incoming.makeAsyncIterator()
        let signalling = try await offered(by: peer, on: endpoint, from: &requests)
        let answering = Task { try await signalling.answer(callID: "in-dialog-1", sdp: Self.ours, trickle: false) }
        let ok = try response(from: peer, to: 1)
        let tag = try #require(try ok.to().tag)
        try peer.send(SIPAnswerRepetitionTests.ack.replacingOccurrences(of: "TAG", with: tag).replacingOccurrences(of: "repeat-1", with: "in-dialog-1"))
        guard case .ack(let ack) = try #require(await requests.next()) else {
            Issue.record("the ACK was not handed to the endpoint's owner")
            return
        }
        await signalling.receivedACK(ack)
        try await answering.value

        // A hold: sendonly offered, recvonly answered from our description, its version one up.
        let hold = Self.theirs.replacingOccurrences(of: "a=setup:actpass\r\n", with: "a=setup:actpass\r\na=sendonly\r\n")
        try await deliver(Self.request("INVITE", sequence: 2, tag: tag, type: "application/sdp", body: hold), by: peer, to: signalling, from: &requests)
        let held = try response(from: peer, to: 2)
        #expect(held.status == 200)
        let heldSDP = String(decoding: held.body, as: UTF8.self)
        #expect(SIPSessionRefresh.direction(of: heldSDP) == .recvonly)
        #expect(SIPSessionRefresh.version(of: heldSDP) == 4)
        #expect(SIPSessionRefresh.attribute("ice-ufrag", in: heldSDP) == "ours")
        // Over UDP that 200 comes again until its ACK (§13.3.1.4).
        let again = try response(from: peer, to: 2)
        #expect(again.body == held.body)
        let heldACK = SIPAnswerRepetitionTests.ack.replacingOccurrences(of: "TAG", with: tag).replacingOccurrences(of: "repeat-1", with: "in-dialog-1")
            .replacingOccurrences(of: "CSeq: 1 ACK", with: "CSeq: 2 ACK").replacingOccurrences(of: "caller2", with: "caller3")
        try peer.send(heldACK)
        guard case .ack(let secondACK) = try #require(await requests.next()) else {
            Issue.record("the ACK of the re-INVITE was not handed to the endpoint's owner")
            return
        }
        await signalling.receivedACK(secondACK)

        try await deliver(Self.request("UPDATE", sequence: 3, tag: tag), by: peer, to: signalling, from: &requests)
        let refreshed = try response(from: peer, to: 3)
        #expect(refreshed.status == 200)
        #expect(refreshed.body.isEmpty)

        try await deliver(Self.request("INFO", sequence: 4, tag: tag, type: "application/dtmf-relay", body: "Signal=5\r\nDuration=160\r\n"),
                          by: peer, to: signalling, from: &requests)
        #expect(try response(from: peer, to: 4).status == 200)

        try await deliver(Self.request("INFO", sequence: 5, tag: tag, type: "text/plain", body: "hello"), by: peer, to: signalling, from: &requests)
        let refused = try response(from: peer, to: 5)
        #expect(refused.status == 415)
        #expect(refused.header("Accept")?.value == SIPInfoDTMF.acceptedTypes)

        try await deliver(Self.request("UPDATE", sequence: 5, tag: tag), by: peer, to: signalling, from: &requests)
        #expect(try response(from: peer, to: 5).status == 500)

        // Our digits: one INFO each, the next sent when the first is answered.
        let sending = Task { try await signalling.sendDTMF(callID: "in-dialog-1", digits: "5#") }
        for expected in ["5", "#"] {
            let info = try SIPMessage.parse(Array(try peer.receive(within: 5).utf8))
            #expect(info.method == "INFO")
            #expect(try SIPInfoDTMF.digit(contentType: info.header(.contentType)?.value, body: info.body) == Character(expected))
            try peer.send(SIPMessage.response(to: info, status: 200, reason: "OK").serializedText)
        }
        try await sending.value

        // Our hold: a re-INVITE offering sendonly, its 200 acknowledged.
        let holding = Task { try await signalling.hold(callID: "in-dialog-1", true) }
        let reinvite = try SIPMessage.parse(Array(try peer.receive(within: 5).utf8))
        #expect(reinvite.method == "INVITE")
        #expect(try reinvite.from().tag == tag)
        #expect(try reinvite.to().tag == "a1")
        #expect(SIPSessionRefresh.direction(of: String(decoding: reinvite.body, as: UTF8.self)) == .sendonly)
        // The peer's re-INVITE crossing ours (glare) is asked to try later (§14.2).
        let restart = Self.theirs.replacingOccurrences(of: "a=ice-ufrag:theirs", with: "a=ice-ufrag:restarted")
        try await deliver(Self.request("INVITE", sequence: 6, tag: tag, type: "application/sdp", body: restart), by: peer, to: signalling, from: &requests)
        #expect(try response(from: peer, to: 6).status == 491)
        try peer.send(SIPMessage.response(to: reinvite, status: 200, reason: "OK", headers: [SIPHeader(.contact, "<sip:alice@127.0.0.1:5060>")],
                                          body: Array(hold.utf8)).serializedText)
        try await holding.value
        var acknowledged: SIPMessage?
        for _ in 0..<10 where acknowledged == nil {
            let message = try SIPMessage.parse(Array(try peer.receive(within: 5).utf8))
            if message.method == "ACK" { acknowledged = message }
        }
        #expect(try #require(acknowledged).cseq() == SIPCSeq(number: try reinvite.cseq().number, method: "ACK"))

        // An ICE restart (new credentials) goes to the call; with none to take it, 488 (§14.2).
        try await deliver(Self.request("INVITE", sequence: 7, tag: tag, type: "application/sdp", body: restart), by: peer, to: signalling, from: &requests)
        #expect(try response(from: peer, to: 7).status == 488)

        await signalling.close()
        await endpoint.close()
    }

    /// The caller's INVITE (call `in-dialog-1`, offering `theirs`) offered to bob's call, as the phone offers it.
    /// The caller's INVITE handed to a new call; `fields` (such as `Supported: 100rel`) go in it too.
    func offered(by peer: LoopbackSIPPeer, on endpoint: SIPEndpoint, with fields: String = "",
                 from requests: inout AsyncStream<SIPIncomingRequest>.AsyncIterator) async throws -> SIPCallSignalling {
        try peer.send(Self.request("INVITE", sequence: 1, tag: nil, type: "application/sdp", body: Self.theirs)
            .replacingOccurrences(of: "Max-Forwards: 70\r\n", with: "Max-Forwards: 70\r\n" + fields))
        guard case .request(let key, let invite) = try #require(await requests.next()) else {
            throw LoopbackPeerFailed(description: "the INVITE was not handed to the endpoint's owner")
        }
        let account = SIPAccount(user: "bob", domain: "parley.test", password: "bob-secret")
        let signalling = SIPCallSignalling(callID: "in-dialog-1", endpoint: endpoint, account: account, logger: Logger(label: "test"), onClose: { _ in })
        await signalling.offer(invite, key: key)
        return signalling
    }

    /// Sends a request and hands it to the call as the phone would.
    func deliver(_ text: String, by peer: LoopbackSIPPeer, to signalling: SIPCallSignalling,
                         from requests: inout AsyncStream<SIPIncomingRequest>.AsyncIterator) async throws {
        try peer.send(text)
        guard case .request(let key, let request) = try #require(await requests.next()) else {
            Issue.record("the request was not handed to the endpoint's owner")
            return
        }
        await signalling.received(request, key: key)
    }

    /// The next final response to request number `sequence`, skipping the repeated 200s of the answer.
    func response(from peer: LoopbackSIPPeer, to sequence: UInt32) throws -> SIPMessage {
        for _ in 0..<20 {
            let message = try SIPMessage.parse(Array(try peer.receive(within: 5).utf8))
            if let status = message.status, status >= 200, try message.cseq().number == sequence { return message }
        }
        throw LoopbackPeerFailed(description: "no final response to request \(sequence)")
    }
}
