@testable import Parley
import Signaling
import TestSupport
import Testing

/// RFC 3261 §12.2.2: a request with the call's Call-ID but another dialog's tags (the BYE of a
/// second fork, which a forking proxy's other branch sends) is answered 481 and leaves the
/// call up; the call's own BYE still ends it. A caller's BYE that passes its ACK (a forking
/// caller ends the forks it does not keep at once) ends our answered call with no BYE of ours.
@Suite(.serialized) struct SIPOtherDialogTests {
    @Test func aByeFromAnotherDialogOfTheCallIDIsRefused481AndTheCallStaysUp() async throws {
        let answered = try await SIPDelayedOfferTests.Answered("other-dialog-1")
        let ourTag = try #require(try answered.ok.to().tag)
        let strayBye = "BYE sip:alice@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bKstraybye\r\nMax-Forwards: 70\r\n"
            + "From: <sip:bob@parley.test>;tag=b2\r\nTo: <sip:alice@parley.test>;tag=\(ourTag)\r\nCall-ID: other-dialog-1\r\n"
            + "CSeq: 2 BYE\r\nContent-Length: 0\r\n\r\n"
        try answered.server.send(strayBye)
        let refusal = try SIPDelayedOfferTests.response(481, from: answered.server)
        #expect(try refusal.cseq() == SIPCSeq(number: 2, method: "BYE"))
        #expect(await answered.incoming.call.state == .active)
        try await answered.hangUp()
        let ended = await answered.incoming.call.state
        #expect({ if case .done = ended { true } else { false } }(), "\(ended)")
    }

    @Test func theCallersByeBeforeItsACKEndsTheCallAndWeSendNoByeOfOurOwn() async throws {
        let server = try SIPHostileServerTests.Server(datagram: true)
        let (phone, incoming) = try await SIPDelayedOfferTests.ringing("bye-before-ack-1", on: server)
        // Unstructured: the answer awaits the ACK while the test plays the caller.
        let answering = Task { try await incoming.answer() }
        let ok = try SIPDelayedOfferTests.response(200, from: server)
        let ourTag = try #require(try ok.to().tag)
        try server.send("BYE sip:alice@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bKearlybye\r\nMax-Forwards: 70\r\n"
            + "From: <sip:bob@parley.test>;tag=b1\r\nTo: <sip:alice@parley.test>;tag=\(ourTag)\r\nCall-ID: bye-before-ack-1\r\n"
            + "CSeq: 2 BYE\r\nContent-Length: 0\r\n\r\n")
        await #expect(throws: ParleyError.self) { try await answering.value }
        // What the phone sends until it has been quiet for 2 s (bounded): the BYE's 200, perhaps
        // a repeat of the INVITE's, and no BYE.
        var sent: [SIPMessage] = []
        for _ in 0..<20 {
            guard let text = try? server.peer.receive(within: 2) else { break }
            sent.append(try SIPMessage.parse(Array(text.utf8)))
        }
        #expect(sent.contains { $0.status == 200 && (try? $0.cseq().method) == "BYE" }, "\(sent.map(\.serializedText))")
        #expect(!sent.contains { $0.method == "BYE" }, "\(sent.map(\.serializedText))")
        try await server.close(phone)
    }
}
