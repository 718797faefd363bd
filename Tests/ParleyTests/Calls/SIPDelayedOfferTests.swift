@testable import Parley
import Signaling
import TestSupport
import Testing

/// An INVITE without SDP (RFC 3261 §13.2.1, docs/sip.md "Delayed offer") rings like any other;
/// answering it puts our offer in the 200 and takes the answer from the caller's ACK. An ACK
/// without one ends the call with BYE, Q.850 cause 88; early media is refused while it rings,
/// and a reject or the caller's CANCEL ends it as any call. A re-INVITE without SDP gets our offer
/// in its 200, and its ACK's answer holds or resumes the call.
/// Ours (`DialOptions.delayedOffer`): the INVITE goes without SDP, the 200's offer is answered in
/// the ACK; a 200 without an offer is acknowledged and ended with BYE.
@Suite(.serialized) struct SIPDelayedOfferTests {
    static func invite(_ callID: String) -> String {
        "INVITE sip:alice@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bK\(callID)\r\nMax-Forwards: 70\r\n"
            + "From: <sip:bob@parley.test>;tag=b1\r\nTo: <sip:alice@parley.test>\r\nCall-ID: \(callID)\r\nCSeq: 1 INVITE\r\n"
            + "Contact: <sip:bob@127.0.0.1:5060>\r\nContent-Length: 0\r\n\r\n"
    }

    static func ack(to ok: SIPMessage, sdp: String?) throws -> String {
        let tag = try #require(try ok.to().tag)
        let callID = try ok.callID()
        let body = sdp.map { "Content-Type: application/sdp\r\nContent-Length: \($0.utf8.count)\r\n\r\n\($0)" } ?? "Content-Length: 0\r\n\r\n"
        return "ACK sip:alice@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bKack\(callID)\r\nMax-Forwards: 70\r\n"
            + "From: <sip:bob@parley.test>;tag=b1\r\nTo: <sip:alice@parley.test>;tag=\(tag)\r\nCall-ID: \(callID)\r\nCSeq: 1 ACK\r\n" + body
    }

    /// The phone's first response to the INVITE with `status` (its repetitions skipped).
    static func response(_ status: Int, from server: SIPHostileServerTests.Server) throws -> SIPMessage {
        for _ in 0..<50 {
            let message = try SIPMessage.parse(Array(try server.peer.receive(within: 10).utf8))
            if message.status == status { return message }
        }
        throw LoopbackPeerFailed(description: "no \(status)")
    }

    /// Registers alice, offers her bob's INVITE without SDP and returns the ringing call.
    static func ringing(_ callID: String, on server: SIPHostileServerTests.Server) async throws -> (SIPPhone, IncomingCall) {
        let phone = try await server.registered()
        var offers = phone.incomingCalls.makeAsyncIterator()
        try server.send(invite(callID))
        let incoming = try #require(await offers.next())
        #expect(!incoming.carriesOffer)
        _ = try response(180, from: server)
        return (phone, incoming)
    }

    /// An offerless call answered: our 200's offer answered by a media leg of the caller's in its
    /// ACK. Returns the 200 and the caller's answer; `hangUp` ends it all.
    final class Answered {
        let server: SIPHostileServerTests.Server
        let phone: SIPPhone
        let incoming: IncomingCall
        let ok: SIPMessage
        let caller: MediaLeg
        let answer: String

        init(_ callID: String) async throws {
            server = try SIPHostileServerTests.Server(datagram: true)
            (phone, incoming) = try await SIPDelayedOfferTests.ringing(callID, on: server)
            let incoming = incoming
            // Unstructured: the answer awaits the ACK while the test plays the caller.
            let answering = Task { try await incoming.answer() }
            ok = try SIPDelayedOfferTests.response(200, from: server)
            caller = try MediaLeg(role: .controlled, options: try SIPHostileServerTests.media(), logger: .init(label: "test"))
            answer = try await caller.answer(String(decoding: ok.body, as: UTF8.self), peerTrickles: false)
            try server.send(try SIPDelayedOfferTests.ack(to: ok, sdp: answer))
            try await answering.value
        }

        func hangUp() async throws {
            let call = incoming.call
            // Unstructured: the hang-up awaits the BYE's 200 while the test plays the caller.
            let hangingUp = Task { await call.hangup() }
            try server.answer(try server.request("BYE"), 200, "OK")
            await hangingUp.value
            await caller.stop()
            try await server.close(phone)
        }
    }

    @Test func theOfferGoesInTheTwoHundredAndTheACKAnswersIt() async throws {
        let answered = try await Answered("late-1")
        let offer = String(decoding: answered.ok.body, as: UTF8.self)
        #expect(offer.contains("m=audio") && offer.contains("a=candidate:"), "the 200 carries our offer, candidates inside: \(offer)")
        #expect(await answered.incoming.call.state == .active)
        try await answered.hangUp()
    }

    /// A re-INVITE without SDP in the call: our offer in the 200 (sendrecv: we do not hold), and
    /// the ACK's answer holds (sendonly) or resumes (sendrecv) the call, as a resume from a PBX does.
    @Test func anOfferlessReinviteIsOfferedToAndItsACKHoldsOrResumes() async throws {
        let answered = try await Answered("late-5")
        let (server, ok, answer) = (answered.server, answered.ok, answered.answer)
        let events = EventRecorder(answered.incoming.call.events)

        for (sequence, direction, state) in [(2, "sendonly", CallState.remotelyHeld), (3, "sendrecv", .active)] {
            let reinvite = Self.invite("late-5").replacingOccurrences(of: "To: <sip:alice@parley.test>", with: "To: <sip:alice@parley.test>;tag=\(try #require(try ok.to().tag))")
                .replacingOccurrences(of: "CSeq: 1 INVITE", with: "CSeq: \(sequence) INVITE").replacingOccurrences(of: "z9hG4bKlate-5", with: "z9hG4bKre\(sequence)")
            try server.send(reinvite)
            var reoffer: SIPMessage?
            for _ in 0..<20 where reoffer == nil {
                let message = try SIPMessage.parse(Array(try server.peer.receive(within: 10).utf8))
                if message.status == 200, try message.cseq().number == UInt32(sequence) { reoffer = message }
            }
            let offered = try #require(reoffer)
            #expect(SIPSessionRefresh.direction(of: String(decoding: offered.body, as: UTF8.self)) == .sendrecv)
            let reanswer = answer.replacingOccurrences(of: "a=sendrecv", with: "a=\(direction)")
            try server.send(try Self.ack(to: offered, sdp: reanswer).replacingOccurrences(of: "CSeq: 1 ACK", with: "CSeq: \(sequence) ACK")
                .replacingOccurrences(of: "z9hG4bKacklate-5", with: "z9hG4bKack\(sequence)"))
            _ = try await events.next("the ACK's \(direction) answer: \(state)") { $0 == .state(state) }
        }
        try await answered.hangUp()
    }

    /// No answer in the ACK, or one that does not answer our offer (video for our audio).
    static let unanswering: [String?] = [nil, "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=video 4000 RTP/AVP 96\r\n"]

    @Test(arguments: unanswering)
    func anACKWithoutAMatchingAnswerEndsTheCallWithBye(ackSDP: String?) async throws {
        let server = try SIPHostileServerTests.Server(datagram: true)
        let (phone, incoming) = try await Self.ringing("late-2", on: server)
        await #expect(throws: ParleyError.self) { try await incoming.sendEarlyMedia() }
        #expect(await incoming.call.state == .ringing)

        // Unstructured: the answer awaits the ACK while the test plays the caller.
        let answering = Task { try await incoming.answer() }
        try server.send(try Self.ack(to: try Self.response(200, from: server), sdp: ackSDP))
        let bye = try server.request("BYE")
        #expect(bye.header(.reason)?.value.contains("cause=88") == true, "the BYE says why: \(bye.serializedText)")
        try server.answer(bye, 200, "OK")
        let failure = try #require(await #expect(throws: ParleyError.self) { try await answering.value })
        #expect(failure.kind == .negotiation, "\(failure.kind): \(failure.message)")
        let reason = try #require(await incoming.call.waitUntilDone() as TerminationReason?)
        #expect(reason.cause == "INCOMPATIBLE_DESTINATION")
        try await server.close(phone)
    }

    @Test func anOfferlessCallIsRejectedOrCancelledAsAnyOther() async throws {
        let server = try SIPHostileServerTests.Server(datagram: true)
        let (phone, rejected) = try await Self.ringing("late-3", on: server)
        try await rejected.reject()
        #expect(try Self.response(486, from: server).callID() == "late-3")

        var offers = phone.incomingCalls.makeAsyncIterator()
        try server.send(Self.invite("late-4"))
        let cancelled = try #require(await offers.next())
        _ = try Self.response(180, from: server)
        try server.send(Self.invite("late-4").replacingOccurrences(of: "INVITE sip:", with: "CANCEL sip:")
            .replacingOccurrences(of: "CSeq: 1 INVITE", with: "CSeq: 1 CANCEL"))
        #expect(try Self.response(487, from: server).callID() == "late-4")
        #expect(await cancelled.call.waitUntilDone().cause == "ORIGINATOR_CANCEL")
        try await server.close(phone)
    }

    /// Alice dials bob without an offer; returns the call's events and the INVITE, checked bare.
    static func dialWithoutOffer(on server: SIPHostileServerTests.Server) async throws -> (SIPPhone, Call, EventRecorder<CallEvent>, SIPMessage) {
        let phone = try await server.registered()
        var options = DialOptions()
        options.delayedOffer = true
        let call = try await phone.dial("bob", options: options)
        let events = EventRecorder(call.events)
        let invite = try server.request("INVITE")
        #expect(invite.body.isEmpty && invite.header(.contentType) == nil, "the INVITE carries no SDP: \(invite.serializedText)")
        return (phone, call, events, invite)
    }

    static func contact(_ server: SIPHostileServerTests.Server) -> SIPHeader {
        SIPHeader(.contact, "<sip:bob@127.0.0.1:\(server.peer.port)>")
    }

    @Test func ourInviteWithoutSDPTakesTheOfferFromTheTwoHundredAndAnswersInTheACK() async throws {
        let server = try SIPHostileServerTests.Server(datagram: true)
        let (phone, call, events, invite) = try await Self.dialWithoutOffer(on: server)
        let callee = try MediaLeg(role: .controlling, options: try SIPHostileServerTests.media(), logger: .init(label: "test"))
        let offer = try await callee.makeOffer()
        try server.answer(invite, 200, "OK", headers: [Self.contact(server), SIPHeader(.contentType, "application/sdp")], body: offer)
        let ack = try server.request("ACK")
        #expect(ack.header(.contentType)?.value == "application/sdp")
        try await callee.applyAnswer(String(decoding: ack.body, as: UTF8.self))
        _ = try await events.next("active once the ACK answered") { $0 == .state(.active) }

        // Unstructured: the hang-up awaits the BYE's 200 while the test plays the callee.
        let hangingUp = Task { await call.hangup() }
        try server.answer(try server.request("BYE"), 200, "OK")
        await hangingUp.value
        await callee.stop()
        try await server.close(phone)
    }

    @Test func aTwoHundredWithoutAnOfferToOurInviteWithoutSDPEndsTheCallWithBye() async throws {
        let server = try SIPHostileServerTests.Server(datagram: true)
        let (phone, _, events, invite) = try await Self.dialWithoutOffer(on: server)
        try server.answer(invite, 200, "OK", headers: [Self.contact(server)])
        let ack = try server.request("ACK")
        #expect(ack.body.isEmpty)
        let bye = try server.request("BYE")
        #expect(bye.header(.reason)?.value.contains("cause=88") == true, "the BYE says why: \(bye.serializedText)")
        try server.answer(bye, 200, "OK")
        let done = try await events.next("the call ends") { if case .state(.done) = $0 { true } else { false } }
        #expect(try #require(done.endReason).cause == "INCOMPATIBLE_DESTINATION")
        try await server.close(phone)
    }
}
