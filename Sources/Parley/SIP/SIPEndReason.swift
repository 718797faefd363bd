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
