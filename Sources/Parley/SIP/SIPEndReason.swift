import Signaling

/// How a SIP final response ends a call, and which response refuses a call we were offered:
/// the table in docs/sip.md ("Calls"), in the end reasons Verto's calls already report. A
/// `Reason: Q.850;cause=N` the peer sent names the cause instead (RFC 3326, docs/sip.md "Reason").
enum SIPEndReason {
    /// Q.850's cause for a call sent elsewhere, which a 3xx we do not follow ends with.
    static let redirected = HangupCause(cause: "REDIRECTION_TO_NEW_DESTINATION", causeCode: 23)

    /// The end reason for a final response of 300 or more to our INVITE.
    static func reason(forStatus status: Int, phrase: String, callID: String, q850: SIPReason? = nil) -> TerminationReason {
        let cause: HangupCause = switch status {
        case 300..<400: redirected
        case 404, 484, 604: .unallocatedNumber
        case 486, 600: .userBusy
        case 408, 480: .noAnswer
        case 487: .originatorCancel
        case 603, 403: .callRejected
        case 488, 606: .incompatibleDestination
        default: .normalTemporaryFailure
        }
        return TerminationReason(q850.map { SIPReason.hangupCause(q850: $0.cause) } ?? cause, sipCode: status, sipReason: phrase, sipCallID: callID)
    }

    /// The cause a peer's BYE ends the call with: its Q.850 Reason's, else NORMAL_CLEARING.
    static func cause(ofBye request: SIPMessage) -> HangupCause {
        SIPReason.q850(in: request).map { SIPReason.hangupCause(q850: $0.cause) } ?? .normalClearing
    }

    /// Why a CANCEL ends the call it rang (RFC 3326): `SIP;cause=200` means another phone
    /// answered it (ANSWERED_ELSEWHERE, which makes the ringing call `answered-elsewhere`, not
    /// missed); else a Q.850 cause is the cause, and another SIP status the cause its response
    /// would give (the table above); without a Reason we can read, the caller gave up
    /// (ORIGINATOR_CANCEL).
    static func reason(ofCancel request: SIPMessage, callID: String) -> TerminationReason {
        let sip = SIPReason.sipStatus(in: request)
        if let sip, sip.cause == 200 {
            return TerminationReason(answeredElsewhere, sipCode: 200, sipReason: sip.text ?? "Call completed elsewhere", sipCallID: callID)
        }
        if let q850 = SIPReason.q850(in: request) {
            return TerminationReason(SIPReason.hangupCause(q850: q850.cause), sipCallID: callID)
        }
        if let sip, sip.cause >= 300 {
            return reason(forStatus: sip.cause, phrase: sip.text ?? "", callID: callID)
        }
        return TerminationReason(.originatorCancel, sipCallID: callID)
    }

    /// Q.850's cause 26, non-selected user clearing: another phone took the call.
    static let answeredElsewhere = SIPReason.hangupCause(q850: 26)

    /// The Reason field our BYE, CANCEL or refusal carries for `cause` (none for a cause that is
    /// not Q.850's).
    static func fields(for cause: HangupCause) -> [SIPHeader] {
        SIPReason.header(for: cause).map { [$0] } ?? []
    }

    /// The final response that refuses an offered call for `cause`.
    static func refusal(for cause: HangupCause) -> (status: Int, phrase: String) {
        switch cause.cause {
        case HangupCause.userBusy.cause: (486, "Busy Here")
        case HangupCause.noAnswer.cause: (480, "Temporarily Unavailable")
        case HangupCause.unallocatedNumber.cause: (404, "Not Found")
        case HangupCause.incompatibleDestination.cause: (488, "Not Acceptable Here")
        default: (603, "Decline")
        }
    }
}
