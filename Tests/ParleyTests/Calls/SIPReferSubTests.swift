@testable import Parley
import Logging
import Signaling
import TestSupport
import Testing

/// REFER without its implicit subscription (RFC 4488, docs/sip.md "Transfer and forward"), as
/// the peer sees it on the wire: our REFER says `Supported: norefersub`, and a 202 with
/// `Refer-Sub: false` completes our transfer at once (our BYE follows, no NOTIFY awaited); the
/// peer's REFER with `Refer-Sub: false` gets it back in the 202 and is followed without a NOTIFY.
@Suite(.serialized) struct SIPReferSubTests {
    @Test func a202WithoutSubscriptionCompletesOurTransferAtOnce() async throws {
        let (peer, endpoint, signalling, _, _) = try await SIPTransferTests.answeredCall()
        let transferring = Task { try await signalling.transfer(callID: "in-dialog-1", destination: "carol") }
        let refer = try SIPTransferTests.next(from: peer) { $0.method == "REFER" }
        #expect(refer.values(.supported).contains { $0.value == "norefersub" })
        #expect(refer.header(SIPReferral.referSub) == nil)
        try peer.send(SIPMessage.response(to: refer, status: 202, reason: "Accepted", headers: [SIPHeader(SIPReferral.referSub, "false")]).serializedText)
        // No NOTIFY comes, and none is awaited: the next thing from us is the BYE.
        let bye = try SIPTransferTests.next(from: peer) { $0.status == nil && $0.method != "ACK" }
        #expect(bye.method == "BYE")
        #expect(bye.header(.reason)?.value == "Q.850;cause=16;text=\"NORMAL_CLEARING\"")
        try peer.send(SIPMessage.response(to: bye, status: 200, reason: "OK").serializedText)
        let outcome = try await withTimeout(seconds: 5) { await transferring.result }
        try outcome.get()
        await signalling.close()
        await endpoint.close()
    }

    @Test func aReferWithoutSubscriptionIsFollowedAndNothingIsNotified() async throws {
        let (peer, endpoint, signalling, call, tag, requests) = try await SIPTransferTests.answeredCallThatFollowsReferrals()
        var inbox = requests

        try await SIPTransferTests.deliver(SIPTransferTests.refer(sequence: 2, tag: tag, fields: "Refer-To: <sip:carol@parley.test>\r\nRefer-Sub: false\r\n"),
                                           by: peer, to: signalling, from: &inbox)
        let accepted = try SIPTransferTests.next(from: peer) { $0.status != nil && (try? $0.cseq().method) == "REFER" }
        #expect(accepted.status == 202)
        #expect(accepted.header(SIPReferral.referSub)?.value == "false")
        #expect(accepted.values(.supported).contains { $0.value == "norefersub" })

        // The call is sent on, and neither its start nor its 180 nor its 486 is NOTIFYed.
        var seen: [SIPMessage] = []
        let invite = try SIPTransferTests.next(from: peer) { seen.append($0); return $0.method == "INVITE" }
        #expect(try invite.callID() == "referred-1")
        try peer.send(SIPMessage.response(to: invite, status: 180, reason: "Ringing", toTag: "c1").serializedText)
        try peer.send(SIPMessage.response(to: invite, status: 486, reason: "Busy Here", toTag: "c1").serializedText)
        // Then the dialog the REFER came in is ended all the same.
        let bye = try SIPTransferTests.next(from: peer) { seen.append($0); return $0.method == "BYE" }
        #expect(try bye.callID() == "in-dialog-1")
        #expect(!seen.contains { $0.method == "NOTIFY" })
        try peer.send(SIPMessage.response(to: bye, status: 200, reason: "OK").serializedText)

        let reason = try await withTimeout(seconds: 5) { await call.waitUntilDone() }
        #expect(reason.cause == "USER_BUSY")
        #expect(reason.sipCode == 486)
        await call.hangup()
        await endpoint.close()
    }
}
