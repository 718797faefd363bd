import Parley

/// What `parley call` needs from a call, whichever dialect placed it.
protocol CallControls: Sendable {
    var callID: String { get }
    var events: AsyncStream<CallEvent> { get }
    func currentState() async -> CallState
    func muted() async -> Bool
    func statistics() async -> CallStatistics
    func currentFailure() async -> ParleyError?
    func waitUntilDone() async -> TerminationReason
    func end() async
    func sendDTMF(_ digits: String) async throws(ParleyError)
    func setMuted(_ muted: Bool) async throws(ParleyError)
    func setHeld(_ held: Bool) async throws(ParleyError)
}

extension Call: CallControls {
    nonisolated var callID: String { id }
    func currentState() async -> CallState { state }
    func muted() async -> Bool { isMuted }
    func currentFailure() async -> ParleyError? { failure }
    func end() async { await hangup() }

    func setMuted(_ muted: Bool) async throws(ParleyError) {
        if muted { try await mute() } else { try await unmute() }
    }

    func setHeld(_ held: Bool) async throws(ParleyError) {
        if held { try await hold() } else { try await unhold() }
    }
}

/// A Janus call: EchoTest or an AudioBridge room. Hold has no Janus equivalent here.
struct JanusCallControls: CallControls {
    let call: JanusCall
    var callID: String { call.destination.description }
    var events: AsyncStream<CallEvent> { call.events }
    func currentState() async -> CallState { await call.state }
    func muted() async -> Bool { await call.isMuted }
    func statistics() async -> CallStatistics { await call.statistics() }
    func currentFailure() async -> ParleyError? { await call.failure }
    func waitUntilDone() async -> TerminationReason { await call.waitUntilDone() }
    func end() async { await call.hangup() }
    func sendDTMF(_ digits: String) async throws(ParleyError) { try await call.sendDTMF(digits) }
    func setMuted(_ muted: Bool) async throws(ParleyError) {
        await call.setMuted(muted)
    }

    func setHeld(_ held: Bool) async throws(ParleyError) {
        throw ParleyError(kind: .callState, message: "hold is not available on Janus \(call.destination) calls")
    }
}
