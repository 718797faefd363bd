import ArgumentParser
import Drivers
import Foundation
import Locking
import Logging
import Parley

struct LoadCommand: LongRunningCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Place many calls from one process: a load test of an IVR, a bot fleet or a switch.",
        discussion: """
            One login, one socket, every call on it (over SIP, --server sip:... --login user@domain: one registration, each call \
            an INVITE on its flow). Starts --calls calls in all, at most --rate a second and at most \
            --concurrency at once; each is held --hold seconds after it is answered, then hung up. --play is sent from frames \
            encoded once per process and loops for the hold. Without --record-dir received audio is counted (loss, jitter, \
            concealment) but not decoded. On a terminal a live line shows the run; --json prints each call's ended event and \
            then one summary event. With --bot SCRIPT each call runs the bot once it is active instead of the hold (docs/bots.md, \
            "Testing an IVR"): a call whose verdict is failed fails as bot-failed, and the summary counts verdicts and failed steps. \
            Exit status: 0 every call answered and held (failures up to --max-failures allowed) and \
            every threshold met (--max-setup-ms, --max-first-audio-ms, --min-mos, --max-loss); 1 otherwise, with the reason; \
            9 this process saturated (media clock late, CPU at its limit or calls begun late) and a threshold judged its \
            figures (--max-setup-ms, --max-first-audio-ms, --min-mos, --max-loss), which are then not the system's; 3 no session; 64 bad usage. The summary ends with PASSED or FAILED and each threshold's figure. --junit FILE and \
            --csv FILE write one test case or row per call for a CI server. Ctrl-C hangs up every call and still prints the summary.
            Example: parley load ivr --server ws://127.0.0.1:8080 --login alice --calls 100 --concurrency 50 --rate 10 --hold 20 --play loop:prompt.wav
            """
    )

    @Argument(help: "Who to call: a number, a SIP URI, or a login on the switch.")
    var destination: String

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var media: MediaFlags
    @OptionGroup var engine: EngineFlags
    @OptionGroup var logging: LoggingFlags
    @OptionGroup var metricsFlags: MetricsFlags
    @OptionGroup var fleet: CallFleetFlags
    @OptionGroup var agentFlags: AgentFlags

    @Option(help: "Calls to place in all.")
    var calls = 1

    @Option(help: "Calls up at once at most (default: --calls).")
    var concurrency: Int?

    @Option(help: "New calls per second at most.")
    var rate: Double = 10

    @Option(help: "Seconds to hold each call after it is answered.")
    var hold: Duration = .seconds(30)

    @Option(help: "Seconds each call may ring unanswered before it ends no-answer (NO_ANSWER 19, a failed call); 0: no limit.")
    var ringTimeout: Duration = .seconds(60)

    @Option(help: "Failed calls the run may have and still pass.")
    var maxFailures = 0

    @Flag(help: "SIP: send each INVITE without SDP (a delayed offer): the far end offers in its 200 and our ACK answers.")
    var delayedOffer = false

    @Option(help: "Fail the run when the 95th percentile of setup time (dial to answer) is over this many milliseconds.")
    var maxSetupMs: Int?

    @Option(name: .customLong("min-mos"), help: "Fail the run when the mean MOS of the calls (E-model, each over its whole length) is under this (1-4.5, the E-model's highest).")
    var minMOS: Double?

    @Option(name: .customLong("max-loss"), help: "Fail the run when its packet loss (lost over expected, all calls) is over this many percent.")
    var maxLoss: Double?

    @Option(help: "Fail the run when the 95th percentile of first audio (dial to the first RTP packet) is over this many milliseconds.")
    var maxFirstAudioMs: Int?

    @OptionGroup var reports: ReportFileFlags

    /// How `--save-sdp` names what carried each description (load speaks Verto or SIP).
    private var sdpDialect: SDPRecorder.Dialect { connection.speaksSIP ? .sip : .verto }

    func validate() throws {
        guard (1...1_000_000).contains(calls) else { throw ValidationError("--calls must be between 1 and 1000000") }
        if let concurrency, !(1...10_000).contains(concurrency) { throw ValidationError("--concurrency must be between 1 and 10000") }
        guard rate.isFinite, rate >= 0.01, rate <= 1000 else { throw ValidationError("--rate must be between 0.01 and 1000 calls a second") }
        guard hold >= .zero, hold <= .seconds(86_400) else { throw ValidationError("--hold must be between 0 and 86400 seconds") }
        if fleet.bot != nil, fleet.dtmf != nil { throw ValidationError("--dtmf and --bot cannot go together: send digits with a send step") }
        try media.checkProfile(speaksSIP: connection.speaksSIP)
        if connection.speaksSIP {
            do throws(ParleyError) { try SIPPhone.check(destination: destination) } catch { throw ValidationError(error.message) }
        } else if delayedOffer {
            throw ValidationError("--delayed-offer goes with a SIP server")
        }
        guard ringTimeout >= .zero else { throw ValidationError("--ring-timeout must not be negative") }
        guard maxFailures >= 0 else { throw ValidationError("--max-failures must not be negative") }
        if let maxSetupMs, maxSetupMs < 1 { throw ValidationError("--max-setup-ms must be at least 1") }
        if let minMOS, !(1...4.5).contains(minMOS) { throw ValidationError("--min-mos must be between 1 and 4.5: the E-model never gives a MOS above 4.5") }
        if let maxLoss, !(0...100).contains(maxLoss) { throw ValidationError("--max-loss must be between 0 and 100 percent") }
        if let maxFirstAudioMs, maxFirstAudioMs < 1 { throw ValidationError("--max-first-audio-ms must be at least 1") }
        guard connection.dialect != .janus else { throw ValidationError("parley load speaks Verto and SIP, not Janus (--dialect verto or sip)") }
        guard media.recordSpec == "null" else { throw ValidationError("--record would be shared by every call: use --record-dir DIR") }
        guard media.play != "stdin", media.play != "-" else { throw ValidationError("--play stdin cannot feed many calls: use tone:HZ, silence or a WAV file") }
        if case .microphone = try? AudioSourceSpec(media.playSpec) { throw ValidationError("--play mic cannot feed many calls: use tone:HZ, silence or a WAV file") }
        if agentFlags.isSet, fleet.bot != nil || fleet.dtmf != nil { throw ValidationError("--agent and --agent-exec cannot go with --bot or --dtmf: the program sends digits") }
    }

    func runLongRunning() async throws {
        let presenter = CallPresenter(json: logging.json)
        let profile = try connection.checkLocalInputs(media: media, presenter: presenter)
        let logger: Logger
        var callMedia: MediaOptions
        let botScript: BotScript?
        do {
            logger = try logging.bootstrap()
            botScript = try fleet.bot.map { path throws(ParleyError) in try BotScriptFile.load(path) }
            callMedia = try media.mediaOptions(profile: profile)
            callMedia.engine = engine.engine()
            // The login's flags now: a bad one is a usage error before anything connects.
            if connection.speaksSIP { _ = try connection.sipAccount() } else { _ = try connection.clientConfiguration(media: callMedia) }
            // Loads the WAV file now: a bad one is a usage error before anything connects.
            _ = try callMedia.source.makeSharedLoopSource(sampleRate: 48000)
            _ = try agentFlags.endpoint(tls: connection)
            try agentFlags.startPlatformAPI()
            // Makes the --save-sdp folder now: one that cannot be made stops the run before it starts.
            if let directory = media.saveSDP { _ = try SDPRecorder(directory: directory, dialect: sdpDialect, peer: destination) }
            try reports.check()
        } catch let error as ParleyError {
            presenter.error(error)
            throw ExitCode(ExitStatus.forSetup(error))
        } catch let error as AudioError {
            presenter.error(ParleyError(error))
            throw ExitCode(ExitStatus.usage)
        }
        callMedia.sharesLoopedSource = true
        // A bot listens to what each call receives.
        callMedia.decodesReceivedAudio = fleet.recordDir != nil || botScript != nil || agentFlags.isSet

        let metrics = try await metricsFlags.start(json: logging.json, dialect: connection.spokenDialect)
        let login: LoadLogin
        do {
            login = try await LoadLogin.open(connection, media: callMedia, logger: logger, presenter: presenter)
        } catch {
            presenter.error(error)
            throw ExitCode(ExitStatus.forSetup(error))
        }
        let total = calls
        presenter.note("\(connection.speaksSIP ? "registered" : "logged in"); placing \(total) calls to \(destination)")
        metrics?.ready(true)
        // Unstructured: feeds clock metrics while the run goes; cancelled when it ends.
        let clockMetrics = Task { [engine = callMedia.engine] in
            guard metrics != nil else { return }
            await CallMetrics.watchClock(of: engine)
        }
        let runner = botScript.map { BotRunner(script: $0, recordDirectory: fleet.recordDir ?? ".") }
        // One `bot failed` warning per call floods a terminal at hundreds of calls: at the
        // default level the summary counts the reasons and --json keeps each call's.
        var botLogger = logger
        if logging.logLevel == .warning { botLogger.logLevel = .error }
        let status = await place(dialing: login.dial, media: callMedia, bot: runner, logger: botLogger, presenter: presenter)
        clockMetrics.cancel()
        await login.close()
        await metricsFlags.linger(metrics)
        throw ExitCode(status)
    }

    private func place(dialing dial: @escaping LoadCall.Dial, media callMedia: MediaOptions, bot: BotRunner?, logger: Logger, presenter: CallPresenter) async -> Int32 {
        let run = LoadRun(plan: LoadRun.Plan(total: calls, concurrency: concurrency ?? calls, rate: rate))
        let engine = callMedia.engine
        let clockAtStart = engine.lateness
        let interruption = Interruption()
        // Unstructured: waits for signals while the run goes; cancelled when it ends.
        let signals = Task {
            for await number in interruption.signals { await run.stop(signal: number) }
        }
        // Unstructured: draws progress while the run goes; cancelled when it ends.
        let progress = Task { [presenter] in
            guard presenter.statusLine else { return }
            await LoadProgress(run: run, presenter: presenter).show()
        }
        // Unstructured: reports the clock while the run goes; cancelled when it ends.
        let clockReporter = Task { [clockInterval = fleet.clockInterval, json = logging.json, engine] in
            guard json, clockInterval > .zero else { return }
            JSONEvents.emit("clock", ClockPayload(calls: 0, engine: engine))
            while !Task.isCancelled {
                try? await Task.sleep(for: clockInterval)
                JSONEvents.emit("clock", ClockPayload(calls: await run.counts.up, engine: engine))
            }
        }
        let saturation = SaturationWatch(engine: engine, presenter: presenter, role: .generator, dialLag: { await run.takeDialLag() })
        // Unstructured: watches for saturation while the command runs; cancelled when it ends.
        let watch = Task { await saturation.run() }
        let started = ContinuousClock.now
        var configured = LoadCallTemplate(destination: destination, media: callMedia, recordDirectory: fleet.recordDir, saveSDPDirectory: media.saveSDP,
                                          hold: hold, ringTimeout: ringTimeout > .zero ? ringTimeout : nil, dtmf: fleet.dtmf, presenter: presenter, bot: bot,
                                          logger: logger)
        configured.agent = try? agentFlags.endpoint(tls: connection)
        configured.delayedOffer = delayedOffer
        configured.sdpDialect = sdpDialect
        let template = configured
        let results = await run.run { index in
            let result = await template.call(index).run(dialing: dial, run: run)
            if presenter.json { JSONEvents.emit("ended", LoadEndedPayload(result)) }
            return result
        }
        progress.cancel()
        await progress.value
        clockReporter.cancel()
        watch.cancel()
        signals.cancel()
        presenter.clearStatus()
        let clock = engine.lateness
        let summary = LoadSummary(
            results: results, attempted: await run.attempted, seconds: (ContinuousClock.now - started).inSeconds,
            startingSeconds: await run.startingSeconds,
            clock: (clockAtStart, clock),
            interrupted: await run.isStopping,
            thresholds: LoadThresholds(maxFailures: maxFailures, maxSetupMs: maxSetupMs, minMOS: minMOS, maxLossPercent: maxLoss, maxFirstAudioMs: maxFirstAudioMs),
            bot: bot != nil, saturation: saturation.report)
        reports.write(results.sorted { $0.index < $1.index }.map(CallReportRow.init), suite: "parley load \(destination)",
                      run: RunVerdictCase(summary), presenter: presenter)
        if presenter.json {
            JSONEvents.emit("summary", summary)
        } else {
            FileHandle.standardError.write(Data(summary.lines.map { $0 + "\n" }.joined().utf8))
        }
        return summary.exitStatus
    }
}

/// What every call of a run shares; `call(_:)` makes the n-th.
struct LoadCallTemplate: Sendable {
    let destination: String
    let media: MediaOptions
    let recordDirectory: String?
    let saveSDPDirectory: String?
    let hold: Duration
    let ringTimeout: Duration?
    let dtmf: String?
    let presenter: CallPresenter
    let bot: BotRunner?
    let logger: Logger
    var agent: AgentEndpoint? = nil
    var delayedOffer = false
    /// How `--save-sdp` names what carried each description.
    var sdpDialect: SDPRecorder.Dialect = .verto

    func call(_ index: Int) -> LoadCall {
        var options = DialOptions()
        options.ringTimeout = ringTimeout
        options.delayedOffer = delayedOffer
        var media = media
        if let recordDirectory { media.sink = .wav(path: "\(recordDirectory)/load-\(index).wav", stereo: false) }
        // Named by the call's number, like its recording; the folder was made before the run.
        if let saveSDPDirectory {
            media.sdpObserver = try? SDPRecorder(directory: saveSDPDirectory, dialect: sdpDialect, peer: destination, call: "load-\(index)").observer
        }
        options.media = media
        var call = LoadCall(index: index, destination: destination, options: options, hold: hold, dtmf: dtmf,
                            presenter: presenter, bot: bot, logger: logger)
        call.agent = agent
        return call
    }
}
