import Drivers
import Foundation
import Locking
import Logging
import Parley

/// Runs one call on the command line: shows its events, sends the requested digits, hangs up
/// after the duration, on q or on Ctrl-C, and turns its end into an exit status.
struct CallSession {
    let call: Call
    let presenter: CallPresenter
    let dtmf: String?
    let duration: Duration?
    let statsInterval: Duration
    let interactive: Bool
    /// Read commands from standard input (it is not a terminal and not the audio source).
    let commandsFromStandardInput: Bool
    /// The source is a microphone, a file or a pipe, whose steady level means trouble.
    var watchesInputLevel = true
    /// A calling-side bot to run once the call is active (docs/bots.md, "Testing an IVR").
    var bot: BotRunner?
    var logger = Logger(label: "parley.bot")
    /// Places the second call of a three-way call; nil where there is none (Janus).
    var threeWay: ThreeWay? = nil
    /// How this side ended the call, when it did: a bot's run cut short is aborted.
    let stop = LocalStop()
    /// `--junit` and `--csv`, and the suite name they carry.
    var reports: (files: ReportFileFlags, suite: String)? = nil
    /// The program the call streams to once active (`--agent`, docs/agents.md), and what it is told of the call.
    var agent: (session: AgentSession, from: String, to: String, headers: [CustomHeader])? = nil
    /// The rating given with `--rate`, whether to ask for one (`--feedback`), the call record
    /// file the call goes to, and the client a rating is sent through (docs/calls.md, "Feedback").
    var feedback: (given: CallFeedback?, asks: Bool, log: CallLog, client: VoiceClient?)? = nil

    func run() async -> Int32 {
        let started = ContinuousClock.now
        let keyboard = KeyboardInput()
        if interactive && presenter.statusLine && keyboard.start() { presenter.keyReminder() }
        let commands = CommandInput()
        if commandsFromStandardInput { commands.start() }
        let interruption = Interruption()
        let (call, presenter, stop) = (call, presenter, stop)
        let quality = CallQualityWatch(call: call, presenter: presenter, watchesInputLevel: watchesInputLevel)
        var driver = CallDriver(call: call)
        driver.observe = { event in
            quality.note(event)
            presenter.event(call.id, event)
        }
        AnsweredCall.configure(&driver, dtmf: dtmf, duration: duration, presenter: presenter, stop: stop)
        if let agent {
            // A program whose call was never answered gets its end before the process exits.
            driver.agent = CallDriver.Agent(session: agent.session, from: agent.from, to: agent.to, headers: agent.headers) { _ in "NOT_ANSWERED" }
        }
        if let bot {
            driver.bot = CallDriver.Bot(runner: bot, logger: logger) { outcome in
                let verdict = outcome.verdict(callingSide: true, stoppedBy: await Self.stoppedHere(call, stop))
                CallMetrics.botVerdict(verdict)
                presenter.bot(call.id, outcome, verdict: verdict)
                return verdict
            }
        }
        driver.add {
            var keys = keyboard.keys.makeAsyncIterator()
            while let key = await keys.next() { await handle(key, then: &keys) }
        }
        driver.add {
            for await line in commands.lines { await perform(line) }
        }
        driver.add {
            for await number in interruption.signals {
                stop.record(Interruption.reason(number))
                await call.hangup()
            }
        }
        quality.start(statsInterval: statsInterval) { state, statistics in
            presenter.status(state, elapsed: ContinuousClock.now - started, statistics: statistics, quality: quality.quality, muted: await call.isMuted)
        }

        let outcome = await driver.run()
        if let counters = outcome.agentCounters { AgentCalls.report(counters, call: call.id) }
        await threeWay?.end()
        quality.stop()
        keyboard.stop()
        commands.stop()
        presenter.deviceDelays(call.id, statistics: await call.statistics())
        var record = await quality.finish(outcome.reason, feedback: feedback?.given)
        if let feedback { await rate(&record, feedback) }
        let status = Self.status(ExitStatus.forEnd(outcome.reason, failure: await call.failure), verdict: outcome.verdict)
        if let reports {
            let row = await reportRow(verdict: outcome.verdict, status: status, reason: outcome.reason, record: record)
            reports.files.write([row], suite: reports.suite, presenter: presenter)
        }
        return status
    }

    /// A call that failed says so first; a working call whose test failed or was cut short says that.
    private static func status(_ status: Int32, verdict: BotVerdict?) -> Int32 {
        guard status == ExitStatus.normal || status == ExitStatus.callFailed, let verdict else { return status }
        switch verdict {
        case .passed: return status
        case .failed: return ExitStatus.botFailed
        case .aborted: return ExitStatus.botAborted
        }
    }

    /// One command line from standard input.
    private func perform(_ line: String) async {
        do throws(ParleyError) {
            guard let (command, argument) = StandardInputCommand.parse(line) else {
                throw ParleyError(kind: .configuration,
                                  message: "unknown command \"\(line.prefix(40))\"; use \(StandardInputCommand.choices)")
            }
            switch command {
            case .dtmf:
                try await call.sendDTMF(argument)
                presenter.sent(call.id, digits: argument)
            case .hold: try await call.hold()
            case .unhold: try await call.unhold()
            case .mute:
                try await call.mute()
                presenter.note("muted")
            case .unmute:
                try await call.unmute()
                presenter.note("unmuted")
            case .hangup:
                stop.record("hung up by a hangup command")
                await call.hangup()
            case .iceRestart: try await call.restartMedia()
            case .transfer: try await call.transfer(to: argument)
            case .merge: try await addToCall(argument)
            case .unmerge: try await call.unmerge()
            }
        } catch {
            presenter.error(error, call: call.id)
        }
    }

    private func handle(_ key: Character, then keys: inout AsyncStream<Character>.Iterator) async {
        guard let action = CallKey(key) else { return }
        do {
            switch action {
            case .quit:
                stop.record("hung up from the keyboard")
                await call.hangup()
            case .mute:
                let muted = await call.isMuted
                if muted { try await call.unmute() } else { try await call.mute() }
                presenter.note(muted ? "unmuted" : "muted")
            case .hold:
                let state = await call.state
                if state == .held || state == .doubleHeld { try await call.unhold() } else { try await call.hold() }
            case .transfer:
                let destination = await readDestination("transfer to", from: &keys)
                if destination.isEmpty { presenter.note("transfer cancelled") } else { try await call.transfer(to: destination) }
            case .merge:
                let destination = await readDestination("add to the call", from: &keys)
                if destination.isEmpty { presenter.note("nothing added") } else { try await addToCall(destination) }
            case .unmerge:
                try await call.unmerge()
            case .digit:
                try await call.sendDTMF(String(key))
                presenter.sent(call.id, digits: String(key))
            case .showKeys:
                presenter.keyReminder()
            }
        } catch {
            presenter.error(error, call: call.id)
        }
    }
}

extension CallSession {
    /// `merge DEST` or `c`: calls DEST and merges it with this call once answered. Runs apart so
    /// that the other commands (hangup, say) still work while DEST rings.
    func addToCall(_ destination: String) async throws(ParleyError) {
        guard let threeWay else { throw ParleyError(kind: .callState, message: "this call cannot place a second call to merge (Janus)") }
        let (call, presenter) = (call, presenter)
        // Unstructured: placing the second call must not block the key that asked for it; errors are shown.
        Task {
            do throws(ParleyError) { try await threeWay.add(destination, to: call) } catch { presenter.error(error, call: call.id) }
        }
    }

    /// After `t` or `c`: the destination typed on the status line, up to Enter; Escape cancels
    /// (an empty destination).
    func readDestination(_ label: String, from keys: inout AsyncStream<Character>.Iterator) async -> String {
        var typed = ""
        presenter.showTyping(label + ": ")
        defer { presenter.showTyping(nil) }
        while let key = await keys.next() {
            switch key {
            case "\n", "\r": return typed
            case "\u{1B}": return ""
            case "\u{7F}", "\u{08}": typed = String(typed.dropLast())
            default: if typed.count < 256 { typed.append(key) }
            }
            presenter.showTyping(label + ": " + typed)
        }
        return typed
    }
}

extension CallSession {
    /// The rating given or asked for, shown, and the call's line in the call record file.
    private func rate(_ record: inout CallRecord, _ feedback: (given: CallFeedback?, asks: Bool, log: CallLog, client: VoiceClient?)) async {
        if feedback.asks {
            if presenter.statusLine && isatty(0) == 1 {
                record.feedback = FeedbackPrompt.ask(presenter: presenter)
            } else {
                presenter.note("--feedback asks on a terminal only; a script gives --rate RATING[:ISSUE]")
            }
        }
        if let rating = record.feedback {
            var sent: Bool?
            if let client = feedback.client {
                do throws(ParleyError) { sent = try await client.sendFeedback(rating, callID: call.id) } catch { presenter.error(error, call: call.id) }
            }
            presenter.feedback(call.id, rating, sent: sent)
        }
        do throws(ParleyError) {
            try feedback.log.append(CallLog.Entry(call: call.id, remoteParty: call.remoteParty, record: record))
        } catch {
            presenter.error(error, call: call.id)
        }
    }
}

extension CallSession {
    /// How this side ended the call, when it did: nil when the far end or the bot ended it.
    static func stoppedHere(_ call: Call, _ stop: LocalStop) async -> String? {
        guard let reason = stop.reason, await call.waitUntilDone().localStatus == .endedByLocalUser else { return nil }
        return reason
    }
}

extension CallSession {
    /// The call as one row of `--junit` and `--csv`: the bot's verdict, or without a bot (or
    /// when the call itself failed) whether it ended normally.
    func reportRow(verdict: BotVerdict?, status: Int32, reason: TerminationReason, record: CallRecord) async -> CallReportRow {
        let dialed = record.timeline.dialed
        let setupMs = dialed.flatMap { dialed in record.timeline.answered.map { Int($0.timeIntervalSince(dialed) * 1000) } }
        var firstAudioMs: Int?
        if let dialed, record.packetsReceived > 0, let arrival = await call.firstPacketArrival() {
            // The arrival is on the monotonic clock, the dial on the wall clock: meet at now.
            let arrived = Date().addingTimeInterval(-(ContinuousClock.now - arrival).inSeconds)
            firstAudioMs = max(0, Int(arrived.timeIntervalSince(dialed) * 1000))
        }
        let seconds = dialed.map { Date().timeIntervalSince($0) } ?? 0
        let name = "call 1"
        if let verdict, status == ExitStatus.normal || status == ExitStatus.botFailed || status == ExitStatus.botAborted {
            return CallReportRow(name: name, callID: call.id, seconds: seconds, setupMs: setupMs, firstAudioMs: firstAudioMs, mos: record.mosMean,
                                 lossPercent: record.lossPercent, verdict: verdict.name, failedStep: verdict.failure?.step, reason: verdict.failure?.reason)
        }
        let failed = status != ExitStatus.normal
        return CallReportRow(name: name, callID: call.id, seconds: seconds, setupMs: setupMs, firstAudioMs: firstAudioMs, mos: record.mosMean,
                             lossPercent: record.lossPercent, verdict: failed ? "failed" : "passed", failedStep: nil,
                             reason: failed ? "the call ended \(reason) (exit status \(status))" : nil)
    }
}
