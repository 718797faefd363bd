import Signaling

extension TerminationReason {
    /// An ending stated by a hang-up cause (the server's, the far end's or our own), with every
    /// field the cause carries, and our own status when we ended the call.
    public init(_ cause: HangupCause, localStatus: LocalStatus? = nil) {
        self.init(cause: cause.cause, causeCode: cause.causeCode, sipCode: cause.sipCode, sipReason: cause.sipReason,
                  sipCallID: cause.sipCallID, localStatus: localStatus)
    }

    /// A SIP call's ending by `cause`, under its Call-ID, with the final response that ended it
    /// when one did (the cause's own SIP fields are not the call's).
    init(_ cause: HangupCause, sipCode: Int? = nil, sipReason: String? = nil, sipCallID: String) {
        self.init(cause: cause.cause, causeCode: cause.causeCode, sipCode: sipCode, sipReason: sipReason, sipCallID: sipCallID)
    }

    /// The same ending, reported with another status of ours.
    func with(localStatus: LocalStatus) -> TerminationReason {
        var reason = self
        reason.localStatus = localStatus
        return reason
    }
}
