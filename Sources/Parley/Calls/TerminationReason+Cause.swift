import Signaling

extension TerminationReason {
    /// An ending stated by a hang-up cause (the server's, the far end's or our own), with every
    /// field the cause carries, and our own status when we ended the call.
    public init(_ cause: HangupCause, localStatus: LocalStatus? = nil) {
        self.init(cause: cause.cause, causeCode: cause.causeCode, sipCode: cause.sipCode, sipReason: cause.sipReason,
                  sipCallID: cause.sipCallID, localStatus: localStatus)
    }

    /// The same ending, reported with another status of ours.
    func with(localStatus: LocalStatus) -> TerminationReason {
        var reason = self
        reason.localStatus = localStatus
        return reason
    }
}
