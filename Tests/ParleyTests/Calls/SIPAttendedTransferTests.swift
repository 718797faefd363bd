@testable import Parley
import Logging
import Signaling
import TestSupport
import Testing

/// Attended transfer (RFC 3891) as the peer sees it on the wire (docs/sip.md, "Transfer and
/// forward"): a REFER whose Refer-To embeds a Replaces is followed by an INVITE carrying it
/// (and requiring `replaces`); a dialog an INVITE's Replaces names is found by its tags, and
/// once the new INVITE is answered and acknowledged, the replaced dialog gets our BYE.
@Suite(.serialized) struct SIPAttendedTransferTests {
    static let account = SIPTransferTests.account
    static let logger = SIPTransferTests.logger

    @Test func aReferWithAnEmbeddedReplacesIsFollowedByAnInviteCarryingIt() async throws {
        let (peer, endpoint, signalling, call, tag, requests) = try await SIPTransferTests.answeredCallThatFollowsReferrals()
        var inbox = requests

        let referTo = "Refer-To: <sip:carol@parley.test?Replaces=consult-9%40host%3Bto-tag%3Dc7%3Bfrom-tag%3Da7>\r\n"
        try await SIPTransferTests.deliver(SIPTransferTests.refer(sequence: 2, tag: tag, fields: referTo), by: peer, to: signalling, from: &inbox)
        #expect(try SIPTransferTests.next(from: peer) { $0.status != nil && (try? $0.cseq().method) == "REFER" }.status == 202)
        let invite = try SIPTransferTests.next(from: peer) { $0.method == "INVITE" }
        #expect(invite.requestURI == "sip:carol@parley.test")
        #expect(try invite.callID() == "referred-1")
        #expect(invite.header(SIPReplaces.header)?.value == "consult-9@host;to-tag=c7;from-tag=a7")
        #expect(invite.header("Require")?.value == "replaces")
        #expect(invite.values(.supported).contains { $0.value == "replaces" })
        try peer.send(SIPMessage.response(to: invite, status: 486, reason: "Busy Here", toTag: "c1").serializedText)
        let reason = try await withTimeout(seconds: 5) { await call.waitUntilDone() }
        #expect(reason.sipCode == 486)
        await call.hangup()
        await endpoint.close()
    }

    @Test func aReplacesFindsTheDialogByItsTagsAndHowItStands() async throws {
        let (peer, endpoint, signalling, requests) = try await SIPTransferTests.offeredCall()
        var inbox = requests
        let call = Call(id: "in-dialog-1", direction: .incoming, remoteParty: "alice", signalling: signalling, media: CallRaceTests.media(), logger: Self.logger)
        await signalling.bind(to: call)
        let ours = await signalling.localTag
        // Ringing: an early dialog, which we do not let be picked up.
        #expect(Self.name(await signalling.replaceable(by: SIPReplaces(callID: "in-dialog-1", toTag: ours, fromTag: "a1"))) == "early")
        _ = try await Self.answer(signalling, peer: peer, inbox: &inbox)
        #expect(Self.name(await signalling.replaceable(by: SIPReplaces(callID: "in-dialog-1", toTag: ours, fromTag: "a1"))) == "confirmed")
        // The tags as the sender sees them: ours is the to-tag; swapped or another, not ours.
        #expect(Self.name(await signalling.replaceable(by: SIPReplaces(callID: "in-dialog-1", toTag: "a1", fromTag: ours))) == "unknown")
        #expect(Self.name(await signalling.replaceable(by: SIPReplaces(callID: "in-dialog-1", toTag: ours, fromTag: "zz"))) == "unknown")
        #expect(Self.name(await signalling.replaceable(by: SIPReplaces(callID: "in-dialog-1", toTag: ours, fromTag: "a1", earlyOnly: true)))
            == "answeredButEarlyOnly")
        #expect(SIPPhone.refusal(for: .answeredButEarlyOnly) == (486, "Busy Here"))
        #expect(SIPPhone.refusal(for: .ended) == (603, "Declined"))
        #expect(SIPPhone.refusal(for: .early) == (481, "Call/Transaction Does Not Exist"))
        try await SIPTransferTests.deliver(SIPInDialogRequestTests.request("BYE", sequence: 2, tag: ours), by: peer, to: signalling, from: &inbox)
        #expect(Self.name(await signalling.replaceable(by: SIPReplaces(callID: "in-dialog-1", toTag: ours, fromTag: "a1"))) == "ended")
        await call.hangup()
        await endpoint.close()
    }

    @Test func theReplacedDialogGetsOurByeOnceTheNewInviteIsAcknowledged() async throws {
        let (peer, endpoint, old, requests) = try await SIPTransferTests.offeredCall()
        var inbox = requests
        let next = SIPCallSignalling(callID: "replacing-1", endpoint: endpoint, account: Self.account, logger: Self.logger, onClose: { _ in })
        let legs = SIPCallLegs(first: old, newLeg: { nil })
        let call = Call(id: "in-dialog-1", direction: .incoming, remoteParty: "alice", signalling: legs, media: CallRaceTests.media(), logger: Self.logger)
        await legs.bind(to: call)
        let ours = try await Self.answer(old, peer: peer, inbox: &inbox)

        // Carol's INVITE to take alice's place, handed over as the phone does.
        try peer.send(Self.replacingInvite(replaces: "in-dialog-1;to-tag=\(ours);from-tag=a1"))
        guard case .request(let key, let invite) = try #require(await inbox.next()) else { throw LoopbackPeerFailed(description: "no INVITE") }
        await next.offer(invite, key: key)
        await legs.replace(old, with: next)
        let answering = Task { try await legs.answer(callID: "in-dialog-1", sdp: SIPInDialogRequestTests.ours, trickle: false) }
        let ok = try SIPTransferTests.next(from: peer) { $0.status == 200 && (try? $0.callID()) == "replacing-1" }
        #expect(try #require(ok.contacts()?.first).uri.hasPrefix("sip:bob@"))
        // No BYE to alice before carol's ACK.
        let ack = SIPAnswerRepetitionTests.ack.replacingOccurrences(of: "TAG", with: try #require(try ok.to().tag))
            .replacingOccurrences(of: "repeat-1", with: "replacing-1").replacingOccurrences(of: "tag=a1", with: "tag=c1")
        try peer.send(ack)
        guard case .ack(let received) = try #require(await inbox.next()) else { throw LoopbackPeerFailed(description: "no ACK") }
        await next.receivedACK(received)
        let bye = try SIPTransferTests.next(from: peer) { $0.method == "BYE" }
        #expect(try bye.callID() == "in-dialog-1")
        #expect(try bye.from().tag == ours)
        // Alice's 200 to it ends nothing: her dialog no longer speaks for the call, carol's does.
        try peer.send(SIPMessage.response(to: bye, status: 200, reason: "OK").serializedText)
        let outcome = try await withTimeout(seconds: 5) { await answering.result }
        try outcome.get()
        let hangingUp = Task { await call.hangup() }
        // (Repetitions of alice's BYE sent before her 200 arrived are passed over.)
        let last = try SIPTransferTests.next(from: peer) { $0.method == "BYE" && (try? $0.callID()) == "replacing-1" }
        try peer.send(SIPMessage.response(to: last, status: 200, reason: "OK").serializedText)
        await hangingUp.value
        await endpoint.close()
    }

    // MARK: Helpers

    /// Answers the offered call on `signalling` (no media: the transcript's SDP) and takes the ACK; our tag.
    static func answer(_ signalling: SIPCallSignalling, peer: LoopbackSIPPeer,
                       inbox: inout AsyncStream<SIPIncomingRequest>.AsyncIterator) async throws -> String {
        let answering = Task { try await signalling.answer(callID: "in-dialog-1", sdp: SIPInDialogRequestTests.ours, trickle: false) }
        let ok = try SIPTransferTests.next(from: peer) { $0.status == 200 }
        let tag = try #require(try ok.to().tag)
        try peer.send(SIPAnswerRepetitionTests.ack.replacingOccurrences(of: "TAG", with: tag).replacingOccurrences(of: "repeat-1", with: "in-dialog-1"))
        guard case .ack(let ack) = try #require(await inbox.next()) else { throw LoopbackPeerFailed(description: "no ACK") }
        await signalling.receivedACK(ack)
        try await answering.value
        return tag
    }

    /// Carol's INVITE (Call-ID `replacing-1`) with `Replaces: replaces`.
    static func replacingInvite(replaces: String) -> String {
        SIPInDialogRequestTests.request("INVITE", sequence: 1, tag: nil, type: "application/sdp", body: SIPInDialogRequestTests.theirs)
            .replacingOccurrences(of: "Call-ID: in-dialog-1", with: "Call-ID: replacing-1\r\nReplaces: \(replaces)")
            .replacingOccurrences(of: "<sip:alice@parley.test>;tag=a1", with: "<sip:carol@parley.test>;tag=c1")
            .replacingOccurrences(of: "branch=z9hG4bKdialogINVITE1", with: "branch=z9hG4bKreplacing1")
    }

    static func name(_ standing: SIPReplaceable) -> String {
        switch standing {
        case .confirmed: "confirmed"
        case .early: "early"
        case .answeredButEarlyOnly: "answeredButEarlyOnly"
        case .ended: "ended"
        case .unknown: "unknown"
        }
    }
}
