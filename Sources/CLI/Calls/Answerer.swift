import Drivers
import Foundation
import Locking
import Logging
import Parley

/// `parley answer`'s loop: answers up to `maxCalls` calls at once (refusing more as busy), runs
/// the bot on each, and stops after `callLimit` calls or on Ctrl-C.
actor Answerer {
    /// The signalling's news: offered calls and (Verto) the session's state.
    private let events: AsyncStream<VoiceClientEvent>
    /// The calls still up, hung up when the run ends.
    private let activeCalls: @Sendable () async -> [Call]
    private let presenter: CallPresenter
    private let logger: Logger
    private let baseMedia: MediaOptions
    private let bot: BotScript?
    private let maxCalls: Int
    private let callLimit: Int?
    private let recordDirectory: String?
    private let saveSDPDirectory: String?
    private let sdpDialect: SDPRecorder.Dialect
    private let duration: Duration?
    private let dtmf: String?
    private let reject: Bool
    private let rejectEvery: Int?
    private let forward: String?
    private var offeredCount = 0
    private let statsInterval: Duration
    private let clockInterval: Duration
    private let reportFirstAudio: Bool
    private var active = 0
    private var ended = 0
    private var failures = 0
    private var finished: CheckedContinuation<Void, Never>?
    private var stopping = false
    /// Set when the client gave up reconnecting: the run ends with the status a call would.
    private var gaveUp: ParleyError?
    /// A call ended because the network or the server went away and it could not be recovered.
    private var lostToNetwork = false
    /// Between the first `reconnecting` and the next login.
    private var reconnecting = false
    private let login: String?
    /// A signal came: no new calls; the process ends when the last call does or the drain
    /// timeout passes.
    private var draining = false
    private let drainTimeout: Duration
    private let metrics: MetricsEndpoint?
    /// Early media before each answer (`--early-media`).
    private let earlyMedia: Duration
    /// Each call's program (`--agent`, `--agent-exec`; AgentCalls.swift).
    private let agent: AgentEndpoint?

    init(events: AsyncStream<VoiceClientEvent>, activeCalls: @escaping @Sendable () async -> [Call], presenter: CallPresenter, logger: Logger, baseMedia: MediaOptions, bot: BotScript?, maxCalls: Int,
         callLimit: Int?, recordDirectory: String?, duration: Duration?, dtmf: String?, reject: Bool, rejectEvery: Int? = nil, forward: String? = nil, statsInterval: Duration,
         clockInterval: Duration = .zero, reportFirstAudio: Bool = false, saveSDPDirectory: String? = nil, sdpDialect: SDPRecorder.Dialect = .verto, login: String? = nil,
         drainTimeout: Duration = .zero, metrics: MetricsEndpoint? = nil, earlyMedia: Duration = .zero, agent: AgentEndpoint? = nil) {
        self.earlyMedia = earlyMedia
        self.agent = agent
        self.events = events
        self.activeCalls = activeCalls
        self.login = login
        self.presenter = presenter
        self.logger = logger
        self.baseMedia = baseMedia
        self.bot = bot
        self.maxCalls = maxCalls
        self.callLimit = callLimit
        self.recordDirectory = recordDirectory
        self.saveSDPDirectory = saveSDPDirectory
        self.sdpDialect = sdpDialect
        self.duration = duration
        self.dtmf = dtmf
        self.reject = reject
        self.rejectEvery = rejectEvery
        self.forward = forward
        self.statsInterval = statsInterval
        self.clockInterval = clockInterval
        self.reportFirstAudio = reportFirstAudio
        self.drainTimeout = drainTimeout
        self.metrics = metrics
    }

    /// Runs until the call limit, Ctrl-C, or the session ends; returns the exit status.
    func run() async -> Int32 {
        let events = self.events
        // Unstructured: the client's event pump for the command's life; cancelled before `run` returns.
        let listener = Task {
            for await event in events { await self.handle(event) }
            self.stop()
        }
        let interruption = Interruption()
        // Unstructured: waits for signals while `run` serves; cancelled before it returns.
        let signals = Task {
            for await _ in interruption.signals { self.interrupted() }
        }
        // Unstructured: feeds clock metrics while `run` serves; cancelled before it returns.
        let clockMetrics = Task { [metrics, engine = baseMedia.engine] in
            guard metrics != nil else { return }
            await CallMetrics.watchClock(of: engine)
        }
        // This process falling behind is its own news, not the callers' (SaturationWatch).
        let saturation = SaturationWatch(engine: baseMedia.engine, presenter: presenter, role: .callee)
        // Unstructured: watches for saturation while the command runs; cancelled when it ends.
        let watch = Task { await saturation.run() }
        // Logged in (the command connected before it made us): ready for calls.
        metrics?.ready(true)
        // Unstructured: reports the clock while `run` serves; cancelled before it returns.
        let clockReporter = Task { [clockInterval] in
            guard clockInterval > .zero else { return }
            while !Task.isCancelled {
                try? await Task.sleep(for: clockInterval)
                self.reportClock()
            }
        }
        await withCheckedContinuation { finished = $0 }
        metrics?.ready(false)
        listener.cancel()
        signals.cancel()
        clockReporter.cancel()
        clockMetrics.cancel()
        watch.cancel()
        if clockInterval > .zero { reportClock() }
        for call in await activeCalls() { await call.hangup() }
        if let gaveUp { return ExitStatus.forSetup(gaveUp) }
        if lostToNetwork { return ExitStatus.networkLost }
        return failures == 0 ? ExitStatus.normal : ExitStatus.callFailed
    }

    private func reportClock() {
        JSONEvents.emit("clock", ClockPayload(calls: active, engine: baseMedia.engine))
    }

    /// The first signal drains when a drain timeout is set and calls are up; a second stops.
    private func interrupted() {
        guard !draining, drainTimeout > .zero, active > 0 else { return stop() }
        draining = true
        metrics?.ready(false)
        presenter.note("draining: refusing new calls, waiting up to \(drainTimeout.inSeconds) s for \(active) call(s) to end")
        // Unstructured: the drain deadline, started from a synchronous signal handler on the actor.
        Task { [drainTimeout] in
            try? await Task.sleep(for: drainTimeout)
            self.stop()
        }
    }

    private func stop() {
        guard !stopping else { return }
        stopping = true
        finished?.resume()
        finished = nil
    }

    private func handle(_ event: VoiceClientEvent) async {
        switch event {
        case .incomingCall(let incoming):
            await offered(incoming)
        case .refusedCall(let callID, let callsInProgress):
            // Refused by the client's own cap (set above --max-calls): counted like ours.
            presenter.note("refusing call \(callID.prefix(8)) as busy (\(callsInProgress) calls in progress in the client)")
            CallMetrics.refused()
            callEnded(failed: false)
        case .disconnected(let reason):
            metrics?.ready(false)
            // Once: each failed reconnect attempt also reports a disconnection, and its
            // `reconnecting` line says enough.
            if !reconnecting { presenter.note("disconnected: \(reason)") }
        case .ready:
            // Logged in (again, after a reconnection).
            reconnecting = false
            presenter.ready(login: login)
            if !draining && !stopping { metrics?.ready(true) }
        case .networkLost, .reconnecting:
            reconnecting = true
            metrics?.ready(false)
            presenter.client(event)
        case .error(let error):
            presenter.error(error)
            // Reconnecting gave up (or the server refused the re-login): nothing will take
            // calls any more, so the run ends instead of waiting or starting over at attempt 1.
            if error.kind == .reconnectFailed || error.kind == .authenticationFailed {
                gaveUp = error
                stop()
            }
        default:
            presenter.client(event)
        }
    }

    private func offered(_ incoming: IncomingCall) async {
        presenter.incoming(incoming)
        offeredCount += 1
        let rejected = reject || rejectEvery.map { offeredCount % $0 == 0 } == true
        guard !stopping, !draining, !rejected, active < maxCalls else {
            presenter.note("refusing call \(incoming.id.prefix(8)) as busy (\(rejected ? "--reject" : draining ? "draining" : "\(active) of \(maxCalls) calls up"))")
            try? await incoming.reject()
            presenter.state(incoming.id, await incoming.call.state)
            CallMetrics.refused()
            callEnded(failed: false)
            return
        }
        if let forward { return await forwardCall(incoming, to: forward) }
        active += 1
        startServing(incoming)
    }

    /// Not isolated: the call's task must not begin on this actor (a task made here, naming
    /// `self`, would).
    private nonisolated func startServing(_ incoming: IncomingCall) {
        // Unstructured: each call is served off this actor, so one call's steps never wait for another's.
        Task { await self.serve(incoming) }
    }

    /// One call from answer to end, off this actor: each step of every call's answer and bot
    /// resumes on the pool, not queued on the one actor that takes every offer; only the count
    /// of calls up comes back here, when the call ends.
    private nonisolated func serve(_ incoming: IncomingCall) async {
        let call = incoming.call
        var admitted: AgentSession?
        if let agent {
            switch await AgentCalls.admit(incoming, endpoint: agent, presenter: presenter) {
            case .admitted(let session): admitted = session
            case .refused: return await served(failed: true, lostToNetwork: false)
            case .abandoned(let reason):
                // Its record and `missed` event, as for a call the caller gave up on while it rang here.
                _ = await CallQualityWatch(call: call, presenter: presenter, watchesInputLevel: false).finish(reason)
                return await served(failed: false, lostToNetwork: false)
            }
        }
        let session = admitted
        var media = baseMedia
        media.watchesFirstAudible = reportFirstAudio
        // The call's audio at the program's rate: Opus runs at it, nothing resamples.
        media.audioRate = session?.callAudioRate
        if let recordDirectory { media.sink = .wav(path: "\(recordDirectory)/\(incoming.id).wav", stereo: false) }
        if let saveSDPDirectory {
            let peer = incoming.callerNumber ?? incoming.callerName ?? "unknown"
            do {
                media.sdpObserver = try SDPRecorder(directory: saveSDPDirectory, dialect: sdpDialect, peer: peer, call: incoming.id).observer
            } catch {
                presenter.error(error, call: incoming.id)
            }
        }
        let quality = CallQualityWatch(call: call, presenter: presenter, watchesInputLevel: !media.source.isGenerated)
        var driver = CallDriver(call: call)
        driver.observe = { [presenter] event in
            quality.note(event)
            presenter.event(call.id, event)
        }
        AnsweredCall.configure(&driver, dtmf: dtmf, duration: duration, presenter: presenter)
        if let session {
            // An admitted program whose call never reached it (the caller gave up during early
            // media, or the answer failed) is told so, and its connection closed.
            driver.agent = CallDriver.Agent(session: session, from: incoming.callerNumber ?? incoming.callerName ?? "", to: incoming.calleeNumber ?? "",
                                            headers: incoming.headers) { _ in "the call ended before it was answered" }
        } else if let bot {
            driver.bot = CallDriver.Bot(runner: BotRunner(script: bot, recordDirectory: recordDirectory ?? "."), logger: logger, hangsUpAfter: true) { [presenter] outcome in
                let verdict = outcome.verdict(callingSide: false)
                // Counted first: a scrape after the bot event sees it.
                CallMetrics.botVerdict(verdict)
                presenter.bot(call.id, outcome, verdict: verdict)
                return verdict
            }
        }
        if reportFirstAudio {
            driver.add { await FirstAudioWatch.report(call) }
        }
        if MetricsEndpoint.enabled {
            let offered = ContinuousClock.now
            driver.add {
                guard let milliseconds = await LoadCall.firstPacket(of: call, since: offered) else { return }
                CallMetrics.firstAudio(.incoming, .milliseconds(milliseconds))
            }
        }
        // The answer is a child: its failure (already the call's end) fails the call. The caller
        // may give up (or ring out) while the early media plays: not our failure.
        driver.add { [earlyMedia, media] () throws(ParleyError) in
            // A call that came without an offer has no answer to send early (docs/sip.md, "Delayed offer").
            if earlyMedia == .zero || !incoming.carriesOffer { return try await incoming.answer(media: media) }
            try await incoming.sendEarlyMedia(media: media)
            if await Self.stillRinging(call, for: earlyMedia) { try await incoming.answer() }
        }
        quality.start(statsInterval: statsInterval)
        let outcome = await driver.run()
        if let counters = outcome.agentCounters { AgentCalls.report(counters, call: call.id) }
        quality.stop()
        _ = await quality.finish(outcome.reason)
        let botFailed = if case .failed = outcome.verdict { true } else { false }
        let mediaFailed = await call.failure != nil || outcome.reason.localStatus == .noMedia
        // A call lost with the network ends the run as it ends `parley call`: status 5.
        let lost = ExitStatus.forEnd(outcome.reason, failure: await call.failure) == ExitStatus.networkLost
        await served(failed: outcome.childFailure != nil || botFailed || mediaFailed, lostToNetwork: lost)
    }

    /// Waits out `span`; false as soon as the call has ended.
    private static func stillRinging(_ call: Call, for span: Duration) async -> Bool {
        let end = ContinuousClock.now + span
        for _ in 0..<36_001 where ContinuousClock.now < end {
            if await call.state.isDone { return false }
            try? await Task.sleep(for: min(.milliseconds(100), end - ContinuousClock.now))
        }
        return !(await call.state.isDone)
    }

    private func served(failed: Bool, lostToNetwork lost: Bool) {
        if lost { lostToNetwork = true }
        active -= 1
        callEnded(failed: failed)
    }

    /// `--forward`: sends the caller on without answering; a refused forward fails the call.
    private func forwardCall(_ incoming: IncomingCall, to destination: String) async {
        var driver = CallDriver(call: incoming.call)
        driver.observe = { [presenter] event in presenter.event(incoming.id, event) }
        // A refused forward hangs the call up (CallDriver ends a call whose child failed).
        driver.add { () throws(ParleyError) in try await incoming.forward(to: destination) }
        let outcome = await driver.run()
        presenter.ended(incoming.id, outcome.reason, statistics: await incoming.call.statistics())
        callEnded(failed: outcome.childFailure != nil)
    }

    private func callEnded(failed: Bool) {
        ended += 1
        if failed { failures += 1 }
        if let callLimit, ended >= callLimit, active == 0 { stop() }
        if draining, active == 0 { stop() }
    }
}
