import CoreMetrics
import Drivers
import Parley

/// What `answer`, `call` and `load` do with `--agent` (docs/agents.md): connect each call's
/// program, let it take or refuse an incoming call, and report what was counted when the call ends.
enum AgentCalls {
    /// What became of a call offered to its program.
    enum Admission {
        case admitted(AgentSession)
        /// Refused: the program is unreachable, speaks another version, rejected it, or went
        /// away; the call is rejected here with the reason shown.
        case refused
        /// The caller gave up (or the server ended the call) before the program answered: a
        /// missed call, not a failure of ours.
        case abandoned(TerminationReason)
    }

    /// Connects the program and offers it the call.
    static func admit(_ incoming: IncomingCall, endpoint: AgentEndpoint, presenter: CallPresenter) async -> Admission {
        let session: AgentSession
        do {
            session = try await AgentSession.connect(endpoint)
        } catch {
            presenter.error(error, call: incoming.id)
            presenter.note("refusing call \(incoming.id.prefix(8)): its agent is unavailable")
            try? await incoming.reject(cause: .normalTemporaryFailure)
            return .refused
        }
        switch await session.offer(incoming) {
        case .answer:
            return .admitted(session)
        case .reject(let cause):
            presenter.note("refusing call \(incoming.id.prefix(8)): its agent rejected it\(cause.map { " (\($0))" } ?? "")")
            try? await incoming.reject(cause: cause.map { HangupCause(cause: $0) } ?? .callRejected)
            await session.abandon(cause: cause ?? "CALL_REJECTED")
        case .callEnded(let reason):
            presenter.note("call \(incoming.id.prefix(8)) ended before its agent answered (\(reason))")
            await session.abandon(cause: reason.cause ?? "ORIGINATOR_CANCEL")
            return .abandoned(reason)
        case .failed(let error):
            presenter.error(error, call: incoming.id)
            try? await incoming.reject(cause: .normalTemporaryFailure)
            await session.abandon(cause: HangupCause.normalTemporaryFailure.cause)
        }
        return .refused
    }

    /// What the program's link counted, at the call's end (CallDriver streamed it): the `agent`
    /// event, and the frames dropped counted.
    static func report(_ counters: AgentCounters, call: String) {
        JSONEvents.emit("agent", AgentPayload(call: call, counters: counters))
        if counters.droppedToProgram > 0 {
            Counter(label: "parley_agent_frames_dropped_total", dimensions: [("direction", "to-program")]).increment(by: counters.droppedToProgram)
        }
        if counters.droppedFromProgram > 0 {
            Counter(label: "parley_agent_frames_dropped_total", dimensions: [("direction", "from-program")]).increment(by: counters.droppedFromProgram)
        }
    }
}

/// The `--json` `agent` event at the end of each agent call (docs/agents.md, "Counters").
struct AgentPayload: Encodable {
    let call: String
    let framesToProgram: Int
    let framesFromProgram: Int
    let droppedToProgram: Int
    let droppedFromProgram: Int
    let marksEchoed: Int
    let clears: Int
    let errorsSent: Int
    let wireToProgramMeanMs: Double
    let wireToProgramMaxMs: Double
    let programToWireMeanMs: Double
    let programToWireMaxMs: Double

    init(call: String, counters: AgentCounters) {
        self.call = call
        framesToProgram = counters.framesToProgram
        framesFromProgram = counters.framesFromProgram
        droppedToProgram = counters.droppedToProgram
        droppedFromProgram = counters.droppedFromProgram
        marksEchoed = counters.marksEchoed
        clears = counters.clears
        errorsSent = counters.errorsSent
        wireToProgramMeanMs = (counters.wireToProgramMeanMs * 100).rounded() / 100
        wireToProgramMaxMs = (counters.wireToProgramMaxMs * 100).rounded() / 100
        programToWireMeanMs = (counters.programToWireMeanMs * 100).rounded() / 100
        programToWireMaxMs = (counters.programToWireMaxMs * 100).rounded() / 100
    }
}
