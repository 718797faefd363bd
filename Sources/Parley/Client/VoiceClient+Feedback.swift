import Signaling

extension VoiceClient {
    /// Sends a finished call's rating to the server as a `<prefix>.feedback` request (`callID`,
    /// `rating`, `issue`), which the embedded switch stores (docs/calls.md, "Feedback"). Verto
    /// has no such method: FreeSWITCH and Telnyx answer that they do not know it, and this
    /// returns false. Other failures (the session is gone, no reply) throw.
    public func sendFeedback(_ feedback: CallFeedback, callID: String) async throws(ParleyError) -> Bool {
        let params: JSONValue = .object(["callID": .string(callID), "rating": .integer(feedback.rating), "issue": .string(feedback.issue.rawValue)])
        do {
            _ = try await verto.perform { session, now throws(SignalingError) in try session.request("feedback", params: params, now: now) }
            return true
        } catch {
            let failure = ParleyError(error)
            if failure.kind == .methodNotFound { return false }
            throw failure
        }
    }
}
