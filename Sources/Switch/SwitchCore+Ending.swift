import Locking
import Signaling

/// Calls the switch ends itself: one nobody answered within the no-answer timeout, and every
/// call when the switch shuts down (docs/cli.md, "parley switch").
extension SwitchCore {
    /// The cause a switch going down gives its calls, as FreeSWITCH does.
    static let shutdownCause = HangupCause(cause: "SYSTEM_SHUTDOWN", causeCode: 503)

    /// Ends, on both sides, each call still unanswered `noAnswerTimeout` after its invite.
    mutating func endUnansweredCalls(now: Double) {
        let timeout = configuration.noAnswerTimeout.inSeconds
        guard timeout > 0 else { return }
        for call in calls.values.sorted(by: { $0.callID < $1.callID }) where call.phase != .active && now - call.invitedAt >= timeout {
            endOnBothSides(call.callID, cause: .noAnswer)
        }
    }

    /// When the next unanswered call times out.
    var noAnswerDeadline: Double? {
        let timeout = configuration.noAnswerTimeout.inSeconds
        guard timeout > 0 else { return nil }
        return calls.values.filter { $0.phase != .active }.map { $0.invitedAt + timeout }.min()
    }

    /// Before the switch goes away: a bye for every call to each of its parties, then a close
    /// frame (1001, going away) for every socket. The driver sends the close frames once the
    /// clients have answered the byes (`shutdownByesAnswered`), or their time is up
    /// (EmbeddedSwitch.shutDown): a socket closed while its client's answer is still arriving
    /// is reset by the kernel, and the client may lose the close frame to the reset.
    package mutating func shutDown() {
        for callID in calls.keys.sorted() { unansweredShutdownByes.formUnion(endOnBothSides(callID, cause: Self.shutdownCause)) }
        for peer in links.keys.sorted() { actions.append(.close(peer: peer, code: 1001, reason: "switch shutting down")) }
    }

    package var shutdownByesAnswered: Bool { unansweredShutdownByes.isEmpty }

    /// The ids of the byes sent.
    @discardableResult
    private mutating func endOnBothSides(_ callID: String, cause: HangupCause) -> [JSONRPCID] {
        guard let call = calls.removeValue(forKey: callID) else { return [] }
        actions.append(.activity(.callEnded(callID: callID, cause: cause.cause)))
        return [call.caller, call.callee].compactMap { party in
            peer(of: party).map { sendRequest("bye", params: byeParams(callID, cause), to: $0) }
        }
    }
}
