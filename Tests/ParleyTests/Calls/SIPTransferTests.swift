@testable import Parley
import Logging
import Signaling
import TestSupport
import Testing

/// Transfer, forward, redirects, early media and Reason over SIP, as the peer sees them on the
/// wire (docs/sip.md, "Transfer", "Redirects", "Reason"): our REFER completed by the peer's
/// NOTIFYs (then our BYE) or refused (the call stays); the peer's REFER refused with a 4xx, or
/// accepted and followed as a new INVITE on a new dialog, its progress NOTIFYed back; a ringing
/// call forwarded with 302; a 3xx followed, and a redirect loop ending the call; 183 before 200;
/// Q.850 Reason on our BYE and refusals.
@Suite(.serialized) struct SIPTransferTests {
    static let account = SIPAccount(user: "bob", domain: "parley.test", password: "bob-secret")
    static let logger = Logger(label: "test.sip-transfer")

    // MARK: Our REFER

    @Test func ourTransferIsAReferThatTheNotifyCompletesAndOurByeEnds() async throws {
        let (peer, endpoint, signalling, tag, requests) = try await Self.answeredCall()
        var inbox = requests
        let transferring = Task { try await signalling.transfer(callID: "in-dialog-1", destination: "carol") }
        let refer = try Self.next(from: peer) { $0.method == "REFER" }
        #expect(refer.header("Refer-To")?.value == "<sip:carol@parley.test>")
        #expect(refer.header("Referred-By")?.value == "<sip:bob@parley.test>")
        #expect(try refer.from().tag == tag)
        #expect(try refer.to().tag == "a1")
        try peer.send(SIPMessage.response(to: refer, status: 202, reason: "Accepted").serializedText)
        let referSequence = try refer.cseq().number
        for (sequence, status, final) in [(2, "100 Trying", false), (3, "200 OK", true)] {
            try await Self.deliver(Self.notify(sequence: sequence, tag: tag, referSequence: referSequence, sipfrag: status, final: final),
                                   by: peer, to: signalling, from: &inbox)
            #expect(try Self.next(from: peer) { $0.status != nil && (try? $0.cseq().method) == "NOTIFY" }.status == 200)
        }
        let bye = try Self.next(from: peer) { $0.method == "BYE" }
        #expect(bye.header(.reason)?.value == "Q.850;cause=16;text=\"NORMAL_CLEARING\"")
        try peer.send(SIPMessage.response(to: bye, status: 200, reason: "OK").serializedText)
        try await transferring.value
        await signalling.close()
        await endpoint.close()
    }

    @Test func aRefusedOrFailedTransferLeavesTheCallUp() async throws {
        let (peer, endpoint, signalling, tag, requests) = try await Self.answeredCall()
        var inbox = requests
        let refused = Task { try await signalling.transfer(callID: "in-dialog-1", destination: "sip:carol@parley.test") }
        let refer = try Self.next(from: peer) { $0.method == "REFER" }
        try peer.send(SIPMessage.response(to: refer, status: 603, reason: "Decline").serializedText)
        let refusal = await Self.failure(of: refused)
        #expect(refusal?.kind == .serverError)
        #expect(refusal?.message.contains("603 Decline") == true)

        // Accepted, but the target is busy: the final NOTIFY fails it.
        let failing = Task { try await signalling.transfer(callID: "in-dialog-1", destination: "carol") }
        let second = try Self.next(from: peer) { $0.method == "REFER" }
        try peer.send(SIPMessage.response(to: second, status: 202, reason: "Accepted").serializedText)
        try await Self.deliver(Self.notify(sequence: 2, tag: tag, referSequence: try second.cseq().number, sipfrag: "486 Busy Here", final: true),
                               by: peer, to: signalling, from: &inbox)
        let failure = await Self.failure(of: failing)
        #expect(failure?.message.contains("486 Busy Here") == true)

        // No BYE of ours: the peer's BYE finds the call up and is answered 200.
        try await Self.deliver(SIPInDialogRequestTests.request("BYE", sequence: 3, tag: tag), by: peer, to: signalling, from: &inbox)
        let next = try Self.next(from: peer) { $0.method == "BYE" || (try? $0.cseq().method) == "BYE" }
        #expect(next.status == 200)
        #expect(try next.cseq().number == 3)
        await signalling.close()
        await endpoint.close()
    }

    // MARK: The peer's REFER

    @Test func aReferWeCannotHonourIsRefused() async throws {
        let (peer, endpoint, signalling, tag, requests) = try await Self.answeredCall()
        var inbox = requests
        let cases: [(String, Int)] = [
            ("", 400),
            ("Refer-To: <tel:+15551234>\r\n", 416),
            ("Refer-To: <sip:carol@parley.test?Subject=x>\r\n", 403),
            // Well formed, but this signalling serves no call to send on: nothing can follow it.
            ("Refer-To: <sip:carol@parley.test>\r\n", 481),
        ]
        for (index, (fields, status)) in cases.enumerated() {
            let sequence = index + 2
            try await Self.deliver(Self.refer(sequence: sequence, tag: tag, fields: fields), by: peer, to: signalling, from: &inbox)
            let response = try Self.next(from: peer) { $0.status != nil && (try? $0.cseq().number) == UInt32(sequence) }
            #expect(response.status == status, "\(fields.debugDescription) was answered \(response.status ?? 0)")
        }
        await signalling.close()
        await endpoint.close()
    }

    @Test func aReferIsFollowedAsANewInviteWhoseProgressIsNotified() async throws {
        let (peer, endpoint, signalling, call, tag, requests) = try await Self.answeredCallThatFollowsReferrals()
        var inbox = requests

        try await Self.deliver(Self.refer(sequence: 2, tag: tag, fields: "Refer-To: <sip:carol@parley.test>\r\nReferred-By: <sip:alice@parley.test>\r\n"),
                               by: peer, to: signalling, from: &inbox)
        #expect(try Self.next(from: peer) { $0.status != nil && (try? $0.cseq().method) == "REFER" }.status == 202)
        let trying = try Self.next(from: peer) { $0.method == "NOTIFY" }
        #expect(trying.header("Event")?.value == "refer;id=2")
        #expect(trying.header("Subscription-State")?.value == "active;expires=60")
        #expect(trying.header(.contentType)?.value == "message/sipfrag;version=2.0")
        #expect(String(decoding: trying.body, as: UTF8.self) == "SIP/2.0 100 Trying\r\n")
        try peer.send(SIPMessage.response(to: trying, status: 200, reason: "OK").serializedText)

        // The call is sent on: a new INVITE on a new dialog, carrying who referred it.
        let invite = try Self.next(from: peer) { $0.method == "INVITE" }
        #expect(invite.requestURI == "sip:carol@parley.test")
        #expect(try invite.callID() == "referred-1")
        #expect(invite.header("Referred-By")?.value == "<sip:alice@parley.test>")
        #expect(!invite.body.isEmpty)
        try peer.send(SIPMessage.response(to: invite, status: 180, reason: "Ringing", toTag: "c1").serializedText)
        let ringing = try Self.next(from: peer) { $0.method == "NOTIFY" && $0.body != trying.body }
        #expect(String(decoding: ringing.body, as: UTF8.self) == "SIP/2.0 180 Ringing\r\n")
        try peer.send(SIPMessage.response(to: ringing, status: 200, reason: "OK").serializedText)
        try peer.send(SIPMessage.response(to: invite, status: 486, reason: "Busy Here", toTag: "c1").serializedText)
        let busy = try Self.next(from: peer) { $0.method == "NOTIFY" && String(decoding: $0.body, as: UTF8.self).contains("486") }
        #expect(busy.header("Subscription-State")?.value == "terminated;reason=noresource")
        #expect(try busy.callID() == "in-dialog-1")
        try peer.send(SIPMessage.response(to: busy, status: 200, reason: "OK").serializedText)
        // Then the dialog the REFER came in is ended.
        let bye = try Self.next(from: peer) { $0.method == "BYE" }
        #expect(try bye.callID() == "in-dialog-1")
        try peer.send(SIPMessage.response(to: bye, status: 200, reason: "OK").serializedText)

        let reason = await call.waitUntilDone()
        #expect(reason.cause == "USER_BUSY")
        #expect(reason.sipCode == 486)
        await call.hangup()
        await endpoint.close()
    }

    // MARK: Forward, early media, refusal

    @Test func aRingingCallIsForwardedWith302() async throws {
        let (peer, endpoint, signalling, _) = try await Self.offeredCall()
        try await signalling.transfer(callID: "in-dialog-1", destination: "carol")
        let moved = try Self.next(from: peer) { ($0.status ?? 0) >= 200 }
        #expect(moved.status == 302)
        #expect(try moved.contacts()?.first?.uri == "sip:carol@parley.test")
        await signalling.close()
        await endpoint.close()
    }

    @Test func earlyMediaIsA183BeforeThe200() async throws {
        let (peer, endpoint, signalling, _) = try await Self.offeredCall()
        try await signalling.earlyMedia(callID: "in-dialog-1", sdp: SIPInDialogRequestTests.ours, trickle: false)
        let progress = try Self.next(from: peer) { $0.status == 183 }
        #expect(String(decoding: progress.body, as: UTF8.self) == SIPInDialogRequestTests.ours)
        #expect(progress.header(.contentType)?.value == "application/sdp")
        let answering = Task { try await signalling.answer(callID: "in-dialog-1", sdp: SIPInDialogRequestTests.ours, trickle: false) }
        let ok = try Self.next(from: peer) { $0.status == 200 }
        #expect(ok.body == progress.body)
        #expect(try ok.to().tag == progress.to().tag)
        answering.cancel()
        await signalling.close()
        await endpoint.close()
    }

    @Test func aRefusalCarriesItsQ850Reason() async throws {
        let (peer, endpoint, signalling, _) = try await Self.offeredCall()
        await signalling.hangup(callID: "in-dialog-1", cause: .userBusy)
        let busy = try Self.next(from: peer) { ($0.status ?? 0) >= 200 }
        #expect(busy.status == 486)
        #expect(busy.header(.reason)?.value == "Q.850;cause=17;text=\"USER_BUSY\"")
        await signalling.close()
        await endpoint.close()
    }

    // MARK: Redirects

    @Test func a302IsFollowedAndARedirectLoopEndsTheCall() async throws {
        let (peer, endpoint, call) = try await Self.dialledCall(followRedirects: true)
        let first = try Self.next(from: peer) { $0.method == "INVITE" }
        #expect(first.requestURI == "sip:bob@parley.test")
        try peer.send(Self.redirect(first, to: "<sip:carol@parley.test>"))
        // (Repetitions of the first INVITE sent before the 302 arrived are passed over.)
        let second = try Self.next(from: peer) { $0.method == "INVITE" && $0.requestURI != first.requestURI }
        #expect(second.requestURI == "sip:carol@parley.test")
        #expect(try second.callID() == first.callID())
        #expect(try second.from().tag == first.from().tag)
        #expect(try second.cseq().number == first.cseq().number + 1)
        #expect(second.body == first.body)
        // Carol sends the call back to bob, who was tried: a loop, which ends the call as the 302.
        try peer.send(Self.redirect(second, to: "<sip:bob@parley.test>"))
        let reason = await call.waitUntilDone()
        #expect(reason.cause == "REDIRECTION_TO_NEW_DESTINATION")
        #expect(reason.causeCode == 23)
        #expect(reason.sipCode == 302)
        let steps = await Self.transferSteps(of: call)
        #expect(steps.count == 2)
        #expect(steps.first == .redirected(destination: "sip:carol@parley.test", response: "302 Moved Temporarily"))
        guard case .redirectNotFollowed(let destination, let why)? = steps.last else {
            Issue.record("the loop was not reported: \(steps)")
            return
        }
        #expect(destination == "sip:bob@parley.test")
        #expect(why.contains("loop"))
        await endpoint.close()
    }

    @Test func aRedirectNotToBeFollowedEndsTheCall() async throws {
        let (peer, endpoint, call) = try await Self.dialledCall(followRedirects: false)
        let first = try Self.next(from: peer) { $0.method == "INVITE" }
        try peer.send(Self.redirect(first, to: "<sip:carol@parley.test>"))
        let reason = await call.waitUntilDone()
        #expect(reason.cause == "REDIRECTION_TO_NEW_DESTINATION")
        #expect(reason.sipCode == 302)
        #expect(await Self.transferSteps(of: call).first == .redirectNotFollowed(destination: "sip:carol@parley.test",
                                                                                 reason: "302 Moved Temporarily: redirects are not followed"))
        await endpoint.close()
    }

    // MARK: Helpers

    /// The peer's INVITE offered to `signalling`, ringing.
    static func offeredCall() async throws -> (LoopbackSIPPeer, SIPEndpoint, SIPCallSignalling, AsyncStream<SIPIncomingRequest>.AsyncIterator) {
        let peer = try LoopbackSIPPeer(datagram: true)
        let endpoint = try await SIPEndpoint.opened(toLoopback: peer)
        var requests = endpoint.incoming.makeAsyncIterator()
        try peer.send(SIPInDialogRequestTests.request("INVITE", sequence: 1, tag: nil, type: "application/sdp", body: SIPInDialogRequestTests.theirs))
        guard case .request(let key, let invite) = try #require(await requests.next()) else { throw LoopbackPeerFailed(description: "no INVITE") }
        let signalling = SIPCallSignalling(callID: "in-dialog-1", endpoint: endpoint, account: account, logger: logger, onClose: { _ in })
        await signalling.offer(invite, key: key)
        return (peer, endpoint, signalling, requests)
    }

    /// The peer's call to us, answered and acknowledged; our To tag.
    static func answeredCall() async throws -> (LoopbackSIPPeer, SIPEndpoint, SIPCallSignalling, String, AsyncStream<SIPIncomingRequest>.AsyncIterator) {
        let peer = try LoopbackSIPPeer(datagram: true)
        let endpoint = try await SIPEndpoint.opened(toLoopback: peer)
        let signalling = SIPCallSignalling(callID: "in-dialog-1", endpoint: endpoint, account: account, logger: logger, onClose: { _ in })
        let (tag, requests) = try await answer(signalling, peer: peer, endpoint: endpoint)
        return (peer, endpoint, signalling, tag, requests)
    }

    static func answer(_ signalling: SIPCallSignalling, peer: LoopbackSIPPeer, endpoint: SIPEndpoint) async throws
        -> (String, AsyncStream<SIPIncomingRequest>.AsyncIterator) {
        var requests = endpoint.incoming.makeAsyncIterator()
        try peer.send(SIPInDialogRequestTests.request("INVITE", sequence: 1, tag: nil, type: "application/sdp", body: SIPInDialogRequestTests.theirs))
        guard case .request(let key, let invite) = try #require(await requests.next()) else { throw LoopbackPeerFailed(description: "no INVITE") }
        await signalling.offer(invite, key: key)
        let answering = Task { try await signalling.answer(callID: "in-dialog-1", sdp: SIPInDialogRequestTests.ours, trickle: false) }
        let ok = try next(from: peer) { $0.status == 200 }
        let tag = try #require(try ok.to().tag)
        try peer.send(SIPAnswerRepetitionTests.ack.replacingOccurrences(of: "TAG", with: tag).replacingOccurrences(of: "repeat-1", with: "in-dialog-1"))
        guard case .ack(let ack) = try #require(await requests.next()) else { throw LoopbackPeerFailed(description: "no ACK") }
        await signalling.receivedACK(ack)
        try await answering.value
        return (tag, requests)
    }

    /// The peer's call to us answered on a real `Call` whose dialogs are `SIPCallLegs`: a REFER
    /// it follows goes out on a new dialog, `referred-1`.
    static func answeredCallThatFollowsReferrals() async throws
        -> (LoopbackSIPPeer, SIPEndpoint, SIPCallSignalling, Call, String, AsyncStream<SIPIncomingRequest>.AsyncIterator) {
        let peer = try LoopbackSIPPeer(datagram: true)
        let endpoint = try await SIPEndpoint.opened(toLoopback: peer)
        let signalling = SIPCallSignalling(callID: "in-dialog-1", endpoint: endpoint, account: account, logger: logger, onClose: { _ in })
        let legs = SIPCallLegs(first: signalling, newLeg: {
            SIPCallSignalling(callID: "referred-1", endpoint: endpoint, account: account, logger: logger, onClose: { _ in })
        })
        let call = Call(id: "in-dialog-1", direction: .incoming, remoteParty: "alice", signalling: legs, media: CallRaceTests.media(), logger: logger)
        await legs.bind(to: call)
        let (tag, requests) = try await answer(signalling, peer: peer, endpoint: endpoint)
        return (peer, endpoint, signalling, call, tag, requests)
    }

    /// Our call to bob, dialled on a real `Call` (its media on loopback), its INVITE on the way.
    static func dialledCall(followRedirects: Bool) async throws -> (LoopbackSIPPeer, SIPEndpoint, Call) {
        let peer = try LoopbackSIPPeer(datagram: true)
        let endpoint = try await SIPEndpoint.opened(toLoopback: peer)
        let signalling = SIPCallSignalling(callID: "redirect-1", endpoint: endpoint, account: account, logger: logger, onClose: { _ in })
        let call = Call(id: "redirect-1", direction: .outgoing, remoteParty: "bob", signalling: signalling, media: CallRaceTests.media(), logger: logger)
        await signalling.bind(to: call)
        var options = DialOptions()
        options.followRedirects = followRedirects
        try await call.dial(destination: "bob", options: options)
        return (peer, endpoint, call)
    }

    static func redirect(_ invite: SIPMessage, to contact: String) -> String {
        SIPMessage.response(to: invite, status: 302, reason: "Moved Temporarily", toTag: "r1", headers: [SIPHeader(.contact, contact)]).serializedText
    }

    /// What a transfer's task threw.
    static func failure(of task: Task<Void, any Error>) async -> ParleyError? {
        do {
            try await task.value
            return nil
        } catch {
            return error as? ParleyError
        }
    }

    /// The call's transfer events so far.
    static func transferSteps(of call: Call) async -> [TransferProgress] {
        var steps: [TransferProgress] = []
        var events = call.events.makeAsyncIterator()
        while let event = await events.next() {
            if case .transfer(let step) = event { steps.append(step) }
            if case .state(.done) = event { break }
        }
        return steps
    }

    /// A REFER of the peer's in call `in-dialog-1`, with `fields` (its Refer-To...).
    static func refer(sequence: Int, tag: String, fields: String) -> String {
        SIPInDialogRequestTests.request("REFER", sequence: sequence, tag: tag)
            .replacingOccurrences(of: "Content-Length: 0", with: fields + "Content-Length: 0")
    }

    /// The peer's NOTIFY for our REFER, its sipfrag `status`.
    static func notify(sequence: Int, tag: String, referSequence: UInt32, sipfrag status: String, final: Bool) -> String {
        SIPInDialogRequestTests.request("NOTIFY", sequence: sequence, tag: tag, type: "message/sipfrag;version=2.0", body: "SIP/2.0 \(status)\r\n")
            .replacingOccurrences(of: "Content-Type:", with: "Event: refer;id=\(referSequence)\r\nSubscription-State: "
                + (final ? "terminated;reason=noresource" : "active;expires=60") + "\r\nContent-Type:")
    }

    /// Sends a request and hands it to the call as the phone would.
    static func deliver(_ text: String, by peer: LoopbackSIPPeer, to signalling: SIPCallSignalling,
                        from requests: inout AsyncStream<SIPIncomingRequest>.AsyncIterator) async throws {
        try peer.send(text)
        guard case .request(let key, let request) = try #require(await requests.next()) else {
            throw LoopbackPeerFailed(description: "the request was not handed to the endpoint's owner")
        }
        await signalling.received(request, key: key)
    }

    /// The next message from us that `matches` (others skipped: repetitions, ACKs), within 5 s each.
    static func next(from peer: LoopbackSIPPeer, where matches: (SIPMessage) throws -> Bool) throws -> SIPMessage {
        for _ in 0..<40 {
            let message = try SIPMessage.parse(Array(try peer.receive(within: 5).utf8))
            if try matches(message) { return message }
        }
        throw LoopbackPeerFailed(description: "no such message among the next 40")
    }
}
