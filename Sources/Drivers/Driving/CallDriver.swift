import Logging
import Parley

/// Drives one call from its first event to its end, and owns everything that runs for it: the
/// one reader of the call's events, the children the command adds (keys, signals, an answer, a
/// first-audio watch), and, from the first `active`, its agent, its bot and its hang-up timer.
/// Every child runs in one task group, so none outlives the call: when the call ends, the bot
/// and the agent (which end with it) are awaited, then the rest are cancelled and awaited, and
/// `run()` returns. A child that throws ends the call: the driver hangs it up and reports the
/// first such error in the outcome. `parley call`, `answer` and `load` (and any new dialect's
/// command) are each a `CallDriver` with their own hooks (docs/architecture.md, "The path of a
/// call").
public struct CallDriver: Sendable {
    /// A program the call streams to once active (docs/agents.md), connected and admitted before.
    public struct Agent: Sendable {
        public let session: AgentSession
        public let from: String
        public let to: String
        public let headers: [CustomHeader]
        /// Why the program's call never started, given how the call ended: the `end` event it is
        /// sent when the call ends before it was ever active.
        public let abandonCause: @Sendable (TerminationReason) -> String

        public init(session: AgentSession, from: String, to: String, headers: [CustomHeader],
                    abandonCause: @escaping @Sendable (TerminationReason) -> String) {
            self.session = session
            self.from = from
            self.to = to
            self.headers = headers
            self.abandonCause = abandonCause
        }
    }

    /// A script run on the call once active (docs/bots.md).
    public struct Bot: Sendable {
        public let runner: BotRunner
        public let logger: Logger
        /// Turns what the script did into the call's verdict; it may show it, and may await the
        /// call's end first (a calling side asks how the call ended before it judges).
        public let judge: @Sendable (BotOutcome) async -> BotVerdict
        /// Hang up once judged (the answering side ends the call its script finished).
        public let hangsUpAfter: Bool

        public init(runner: BotRunner, logger: Logger, hangsUpAfter: Bool = false,
                    judge: @escaping @Sendable (BotOutcome) async -> BotVerdict) {
            self.runner = runner
            self.logger = logger
            self.judge = judge
            self.hangsUpAfter = hangsUpAfter
        }
    }

    /// What became of the call and its children.
    public struct Outcome: Sendable {
        public let reason: TerminationReason
        /// The call was active at some point.
        public let answered: Bool
        /// The bot's verdict, when one ran.
        public let verdict: BotVerdict?
        /// What the agent link counted, when the call streamed to one.
        public let agentCounters: AgentCounters?
        /// The hang-up timer ran out and hung the call up.
        public let timerHungUp: Bool
        /// The first error a child threw (which hung the call up).
        public let childFailure: ParleyError?
    }

    public let call: Call
    /// Sees every event of the call, in order, before the driver acts on it (and after the
    /// agent's session noted it).
    public var observe: @Sendable (CallEvent) async -> Void = { _ in }
    /// Runs once at the first `active`, after the agent and the bot started and before the
    /// hang-up timer does; the driver reads the next event when it returns.
    public var whenActive: @Sendable () async -> Void = {}
    public var agent: Agent?
    public var bot: Bot?
    /// Hangs the call up this long after it became active (`--duration`, `load --hold`), after
    /// telling `expiring`; cancelled when the call ends first.
    public private(set) var hangUpTimer: (after: Duration, expiring: @Sendable () -> Void)?
    private var children: [@Sendable () async throws(ParleyError) -> Void] = []

    public init(call: Call) {
        self.call = call
    }

    /// Runs `child` from the start of `run()` until it returns or the call ends (then it is
    /// cancelled, and awaited: it must end on cancellation or with the call). If it throws,
    /// the call is hung up and the error is the outcome's `childFailure`.
    public mutating func add(_ child: @escaping @Sendable () async throws(ParleyError) -> Void) {
        children.append(child)
    }

    public mutating func hangUp(after duration: Duration, expiring: @escaping @Sendable () -> Void = {}) {
        hangUpTimer = (duration, expiring)
    }

    /// Drives the call until it ends and every child has returned.
    public func run() async -> Outcome {
        await withTaskGroup(of: Finished.self) { group in
            for child in children {
                group.addTask { [call] in
                    do throws(ParleyError) {
                        try await child()
                        return .child(failure: nil)
                    } catch {
                        await call.hangup()
                        return .child(failure: error)
                    }
                }
            }
            var answered = false
            for await event in call.events {
                agent?.session.note(event)
                await observe(event)
                guard case .state(.active) = event, !answered else { continue }
                answered = true
                await startActiveChildren(in: &group)
            }
            let reason = await call.waitUntilDone()
            if let agent, !answered { await agent.session.abandon(cause: agent.abandonCause(reason)) }
            var collected = Collected()
            // The agent and the bot end with the call and report on it: awaited, not cancelled.
            var endingWithCall = answered ? (agent == nil ? 0 : 1) + (bot == nil ? 0 : 1) : 0
            while endingWithCall > 0, let finished = await group.next() {
                if finished.endsWithCall { endingWithCall -= 1 }
                collected.note(finished)
            }
            group.cancelAll()
            while let finished = await group.next() { collected.note(finished) }
            return Outcome(reason: reason, answered: answered, verdict: collected.verdict, agentCounters: collected.agentCounters,
                           timerHungUp: collected.timerHungUp, childFailure: collected.failure)
        }
    }

    /// The agent's stream, the bot and the hang-up timer, at the first `active`: the one place
    /// a call's program and script start.
    private func startActiveChildren(in group: inout TaskGroup<Finished>) async {
        if let agent {
            group.addTask { [call] in
                .agent(await agent.session.run(call, from: agent.from, to: agent.to, headers: agent.headers))
            }
        }
        if let bot {
            group.addTask { [call] in
                let verdict = await bot.judge(await call.runBot(bot.runner, logger: bot.logger))
                if bot.hangsUpAfter { await call.hangup() }
                return .bot(verdict)
            }
        }
        await whenActive()
        if let hangUpTimer {
            group.addTask { [call] in
                do { try await Task.sleep(for: hangUpTimer.after) } catch { return .timer(hungUp: false) }
                hangUpTimer.expiring()
                await call.hangup()
                return .timer(hungUp: true)
            }
        }
    }

    private enum Finished: Sendable {
        case child(failure: ParleyError?)
        case agent(AgentCounters)
        case bot(BotVerdict)
        case timer(hungUp: Bool)

        var endsWithCall: Bool {
            switch self {
            case .agent, .bot: true
            case .child, .timer: false
            }
        }
    }

    private struct Collected {
        var verdict: BotVerdict?
        var agentCounters: AgentCounters?
        var timerHungUp = false
        var failure: ParleyError?

        mutating func note(_ finished: Finished) {
            switch finished {
            case .child(let failure): if self.failure == nil { self.failure = failure }
            case .agent(let counters): agentCounters = counters
            case .bot(let verdict): self.verdict = verdict
            case .timer(let hungUp): timerHungUp = hungUp
            }
        }
    }
}
