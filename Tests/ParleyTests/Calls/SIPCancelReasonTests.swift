@testable import Parley
import Logging
import Signaling
import TestSupport
import Testing

/// A CANCEL's Reason read as the cause (RFC 3326, docs/sip.md "Reason"): the peer's CANCEL of a
/// call ringing here ends it as its Reason says (another phone answered it: answered elsewhere,
/// not missed), and our own CANCEL says why we gave up, or nothing when the caller just hung up.
@Suite(.serialized) struct SIPCancelReasonTests {
    @Test func aCancelsReasonIsReadAsTheCause() throws {
        let cases: [(reason: String?, cause: String, code: Int?, sipCode: Int?)] = [
            (#"SIP;cause=200;text="Call completed elsewhere""#, "ANSWERED_ELSEWHERE", 26, 200),
            // The SIP status says more than the Q.850 beside it.
            (#"Q.850;cause=16, SIP;cause=200;text="Call completed elsewhere""#, "ANSWERED_ELSEWHERE", 26, 200),
            ("Q.850;cause=26", "ANSWERED_ELSEWHERE", 26, nil),
            (#"Q.850;cause=19;text="NO_ANSWER""#, "NO_ANSWER", 19, nil),
            (#"SIP;cause=603;text="Declined""#, "CALL_REJECTED", 21, 603),
            (#"SIP;cause=600;text="Busy Everywhere""#, "USER_BUSY", 17, 600),
            (nil, "ORIGINATOR_CANCEL", 487, nil),
            // Unreadable, or out of each protocol's range: as if there were none.
            ("Q.850;cause=many", "ORIGINATOR_CANCEL", 487, nil),
            ("Q.850;cause=700", "ORIGINATOR_CANCEL", 487, nil),
            ("SIP;cause=100", "ORIGINATOR_CANCEL", 487, nil),
        ]
        for (reason, cause, code, sipCode) in cases {
            let cancel = try SIPMessage.parse(Array(Self.cancel(reason: reason).utf8))
            let ended = SIPEndReason.reason(ofCancel: cancel, callID: "in-dialog-1")
            #expect(ended.cause == cause, "\(reason ?? "no Reason")")
            #expect(ended.causeCode == code, "\(reason ?? "no Reason")")
            #expect(ended.sipCode == sipCode, "\(reason ?? "no Reason")")
        }
    }

    @Test func aCancelCompletedElsewhereEndsTheRingingCallAnsweredElsewhere() async throws {
        let (call, reason) = try await Self.cancelled(reason: #"SIP;cause=200;text="Call completed elsewhere""#)
        #expect(reason.cause == "ANSWERED_ELSEWHERE")
        #expect(reason.sipCode == 200)
        #expect(reason.sipReason == "Call completed elsewhere")
        #expect(reason.localStatus == .answeredElsewhere)
        #expect(reason.reportedLocalStatus.kandyCode == 9904)
        await call.hangup()
    }

    @Test func aCancelWithAQ850CauseEndsTheCallWithIt() async throws {
        let (call, reason) = try await Self.cancelled(reason: #"Q.850;cause=19;text="NO_ANSWER""#)
        #expect(reason.cause == "NO_ANSWER")
        #expect(reason.causeCode == 19)
        #expect(reason.localStatus == nil)
        await call.hangup()
    }

    @Test func aCancelWithoutReasonIsTheCallerGivingUp() async throws {
        let (call, reason) = try await Self.cancelled(reason: nil)
        #expect(reason.cause == "ORIGINATOR_CANCEL")
        #expect(reason.reportedLocalStatus == .notProvided)
        await call.hangup()
    }

    @Test func ourCancelSaysWhyOnlyWhenWeDidNotSimplyGiveUp() async throws {
        for (cause, expected) in [(nil, nil), (HangupCause.noAnswer, #"Q.850;cause=19;text="NO_ANSWER""#)] as [(HangupCause?, String?)] {
            let (peer, endpoint, call) = try await SIPTransferTests.dialledCall(followRedirects: false)
            let invite = try SIPTransferTests.next(from: peer) { $0.method == "INVITE" }
            try peer.send(SIPMessage.response(to: invite, status: 180, reason: "Ringing", toTag: "b1").serializedText)
            _ = try await EventRecorder(call.events).next("ringing") { $0 == .state(.ringing) }
            // The hang-up awaits the CANCEL's 200, which the peer sends below.
            let hangingUp = Task { await call.hangup(cause: cause) }
            let cancel = try SIPTransferTests.next(from: peer) { $0.method == "CANCEL" }
            #expect(cancel.header(.reason)?.value == expected, "\(cause?.cause ?? "a hang-up")")
            try peer.send(SIPMessage.response(to: cancel, status: 200, reason: "OK").serializedText)
            try peer.send(SIPMessage.response(to: invite, status: 487, reason: "Request Terminated", toTag: "b1").serializedText)
            await hangingUp.value
            await endpoint.close()
        }
    }

    // MARK: Helpers

    /// The peer's CANCEL of its INVITE `in-dialog-1` (the INVITE's branch), with `reason`.
    static func cancel(reason: String?) -> String {
        SIPInDialogRequestTests.request("CANCEL", sequence: 1, tag: nil)
            .replacingOccurrences(of: "branch=z9hG4bKdialogCANCEL1", with: "branch=z9hG4bKdialogINVITE1")
            .replacingOccurrences(of: "Content-Length: 0", with: (reason.map { "Reason: \($0)\r\n" } ?? "") + "Content-Length: 0")
    }

    /// A call the peer offers, ringing here on a real `Call`, then cancelled with `reason`: the
    /// CANCEL is answered 200 and the INVITE 487, and the call ends as it returns.
    static func cancelled(reason: String?) async throws -> (Call, TerminationReason) {
        let (peer, endpoint, signalling, requests) = try await SIPTransferTests.offeredCall()
        var inbox = requests
        let call = Call(id: "in-dialog-1", direction: .incoming, remoteParty: "alice", signalling: signalling, media: CallRaceTests.media(),
                        logger: SIPTransferTests.logger)
        await signalling.bind(to: call)
        try await SIPTransferTests.deliver(cancel(reason: reason), by: peer, to: signalling, from: &inbox)
        #expect(try SIPTransferTests.next(from: peer) { (try? $0.cseq().method) == "CANCEL" }.status == 200)
        #expect(try SIPTransferTests.next(from: peer) { (try? $0.cseq().method) == "INVITE" && ($0.status ?? 0) >= 200 }.status == 487)
        let ended = try await withTimeout(seconds: 5) { await call.waitUntilDone() }
        await endpoint.close()
        return (call, ended)
    }
}
