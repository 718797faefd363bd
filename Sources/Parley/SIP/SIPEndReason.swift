import Signaling

/// How a SIP final response ends a call, and which response refuses a call we were offered:
/// the table in docs/sip.md ("Calls"), in the end reasons Verto's calls already report.
enum SIPEndReason {
    /// The end reason for a final response of 300 or more to our INVITE.
    static func reason(forStatus status: Int, phrase: String, callID: String) -> TerminationReason {
        let cause: HangupCause = switch status {
        case 404, 484, 604: .unallocatedNumber
        case 486, 600: .userBusy
        case 408, 480: .noAnswer
        case 487: .originatorCancel
        case 603, 403: .callRejected
        case 488, 606: .incompatibleDestination
        default: .normalTemporaryFailure
        }
        return TerminationReason(cause, sipCode: status, sipReason: phrase, sipCallID: callID)
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
