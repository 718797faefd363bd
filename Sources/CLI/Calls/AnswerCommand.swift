import ArgumentParser
import Drivers
import Foundation
import Logging
import Parley

struct AnswerCommand: LongRunningCommand {
    static let configuration = CommandConfiguration(
        commandName: "answer",
        abstract: "Wait for calls and answer them, optionally running an IVR bot on each.",
        discussion: """
            Without --bot each call plays --play and lasts until the caller hangs up (or --duration). \
            With --bot SCRIPT each call runs the bot (docs/bots.md). --max-calls N carries N calls at once; \
            more are refused as busy. --calls N exits after N calls have ended. With --json: ready and incoming events.

            Exit status: 0 every call ended normally; 1 one failed; 3 no session; 5 the network or the server went away \
            and a call or the session could not be recovered (as parley call); \
            64 bad usage; 66 a file to read is missing or unreadable.

            Example: parley answer --server ws://127.0.0.1:8080 --login ivr --bot examples/bots/ivr.yaml --max-calls 10
            """
    )

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var media: MediaFlags
    @OptionGroup var engine: EngineFlags
    @OptionGroup var logging: LoggingFlags
    @OptionGroup var metricsFlags: MetricsFlags
    @OptionGroup var fleet: CallFleetFlags
    @OptionGroup var agentFlags: AgentFlags

    @Option(help: "On SIGTERM or Ctrl-C, refuse new calls and wait this many seconds for the calls up to end before hanging them up (a second signal hangs up at once).")
    var drainTimeout: Duration = .zero

    @Option(help: "How many calls to carry at once; more are refused as busy.")
    var maxCalls = 1

    @Option(help: "Exit after this many calls have ended.")
    var calls: Int?

    @Option(help: "Before answering, play --play to the caller as early media for this many seconds (the caller sees early-media); 0: answer at once.")
    var earlyMedia: Duration = .zero

    @Option(help: "Hang up each call this many seconds after answering.")
    var duration: Duration?

    @Flag(help: "Refuse every call as busy instead of answering (for testing callers).")
    var reject = false

    @Option(help: "Forward every call offered to this destination before answering (a login on the switch; over SIP a user or sip: URI, sent as 302); each ends call-forwarded.")
    var forward: String?

    @Option(help: "Refuse every Nth call offered as busy (the 10th, 20th, ... with 10), answering the rest (for testing callers).")
    var rejectEvery: Int?

    @Option(help: "Seconds between --json stats events per call (0: only at the end).")
    var statsInterval: Duration = .seconds(5)

    @Flag(help: "Print a --json first-audio event when each call decodes its first audible frame (reported by the media session as it plays it; for setup-time benchmarks).")
    var reportFirstAudio = false

    @Flag(help: "Encode bot prompts in every call instead of sending frames encoded once per process (to measure the difference).")
    var noPromptCache = false
    func validate() throws {
        guard maxCalls >= 1, maxCalls <= 10_000 else { throw ValidationError("--max-calls must be between 1 and 10000") }
        if let calls, calls < 1 { throw ValidationError("--calls must be at least 1") }
        if let rejectEvery, rejectEvery < 1 { throw ValidationError("--reject-every must be at least 1") }
        if let duration, duration <= .zero { throw ValidationError("--duration must be positive") }
        guard (.zero ... .seconds(3600)).contains(earlyMedia) else { throw ValidationError("--early-media must be 0-3600 seconds") }
        if earlyMedia > .zero, reject || forward != nil { throw ValidationError("--early-media cannot be combined with --reject or --forward") }
        if let forward {
            guard (try? Call.checkedDestination(forward)) != nil else { throw ValidationError("--forward needs one destination word without spaces") }
            if reject || rejectEvery != nil || fleet.bot != nil { throw ValidationError("--forward cannot be combined with --reject, --reject-every or --bot") }
        }
        guard (.zero ... .seconds(3600)).contains(drainTimeout) else { throw ValidationError("--drain-timeout must be 0-3600 seconds") }
        try media.checkProfile(speaksSIP: connection.speaksSIP)
        try media.checkOutput(json: logging.json)
        if agentFlags.isSet, fleet.bot != nil || forward != nil { throw ValidationError("--agent and --agent-exec cannot go with --bot or --forward") }
    }

    /// The client's own cap: --max-calls plus headroom for calls that are ending (the Answerer
    /// has counted them down; the client still holds them until their bye is done) and for
    /// invites the Answerer refuses itself, so the Answerer sees every call it may take.
    static func clientCallCap(maxCalls: Int) -> Int {
        maxCalls + max(16, maxCalls / 4)
    }

    func runLongRunning() async throws {
        let presenter = CallPresenter(json: logging.json, revealDigits: logging.revealsSecrets)
        let profile = try connection.checkLocalInputs(media: media, presenter: presenter)
        let logger: Logger
        // One of the two: a Verto login's configuration, or the media of a SIP registration.
        var vertoConfiguration: VoiceClientConfiguration?
        var sipMedia: MediaOptions?
        let botScript: BotScript?
        let agent: AgentEndpoint?
        do {
            agent = try agentFlags.endpoint(tls: connection)
            try agentFlags.startPlatformAPI()
            logger = try logging.bootstrap()
            presenter.logger = logger
            var mediaOptions = try media.mediaOptions(profile: profile)
            mediaOptions.engine = engine.engine()
            botScript = try fleet.bot.map { path throws(ParleyError) in try BotScriptFile.load(path) }
            if connection.speaksSIP {
                sipMedia = mediaOptions
            } else {
                vertoConfiguration = try connection.clientConfiguration(media: mediaOptions)
                vertoConfiguration?.maximumCalls = Self.clientCallCap(maxCalls: maxCalls)
            }
        } catch {
            presenter.error(error)
            throw ExitCode(ExitStatus.forSetup(error))
        }
        let person = botScript == nil && maxCalls == 1 && fleet.recordDir == nil
        if noPromptCache { BotPromptCache.shared.preEncoded = false }
        if var sipMedia {
            media.chooseTerminalAudio(&sipMedia, json: logging.json, person: person, presenter: presenter)
            let metrics = try await metricsFlags.start(json: logging.json, dialect: connection.spokenDialect)
            throw ExitCode(await answerSIP(media: sipMedia, botScript: botScript, agent: agent, metrics: metrics, logger: logger, presenter: presenter))
        }
        guard var configuration = vertoConfiguration else { return }
        media.chooseTerminalAudio(&configuration.media, json: logging.json, person: person, presenter: presenter)
        let metrics = try await metricsFlags.start(json: logging.json, dialect: connection.spokenDialect)
        let client = VoiceClient(configuration: configuration, logger: logger)
        presenter.note("connecting to \(configuration.server)")
        do {
            try await client.connect()
        } catch {
            presenter.error(error)
            throw ExitCode(ExitStatus.forSetup(error))
        }
        presenter.note("logged in; waiting for calls (up to \(maxCalls) at once)")
        let answerer = Answerer(
            events: client.events, activeCalls: { await client.activeCalls }, presenter: presenter, logger: logger, baseMedia: configuration.media, bot: botScript, maxCalls: maxCalls,
            callLimit: calls, recordDirectory: fleet.recordDir, duration: duration, dtmf: fleet.dtmf, reject: reject, rejectEvery: rejectEvery, forward: forward, statsInterval: statsInterval,
            clockInterval: logging.json ? fleet.clockInterval : .zero, reportFirstAudio: logging.json && reportFirstAudio, saveSDPDirectory: media.saveSDP,
            login: configuration.credentials.login, drainTimeout: drainTimeout, metrics: metrics, earlyMedia: earlyMedia, agent: agent)
        let status = await answerer.run()
        await client.disconnect()
        await metricsFlags.linger(metrics)
        throw ExitCode(status)
    }
}

extension AnswerCommand {
    /// SIP: register, then serve the calls offered as a Verto login's are served.
    private func answerSIP(media mediaOptions: MediaOptions, botScript: BotScript?, agent: AgentEndpoint?, metrics: MetricsEndpoint?, logger: Logger,
                           presenter: CallPresenter) async -> Int32 {
        let phone: SIPPhone
        let user: String
        do {
            let account = try connection.sipAccount()
            user = account.user
            presenter.note("registering \(account.user)@\(account.domain) at \(account.server)")
            phone = try await SIPPhone.register(server: account.server, user: account.user, domain: account.domain, password: account.password,
                                                media: mediaOptions, tls: account.tls, clientCertificate: account.clientCertificate, logger: logger)
            await phone.keepCalls(try connection.reconnectionPolicy())
        } catch {
            presenter.error(error)
            return ExitStatus.forSetup(error)
        }
        presenter.note("registered; waiting for calls (up to \(maxCalls) at once)")
        presenter.ready(login: user)
        let answerer = Answerer(
            events: phone.clientEvents, activeCalls: { await phone.activeCalls }, presenter: presenter, logger: logger, baseMedia: mediaOptions,
            bot: botScript, maxCalls: maxCalls, callLimit: calls, recordDirectory: fleet.recordDir, duration: duration, dtmf: fleet.dtmf, reject: reject,
            rejectEvery: rejectEvery, forward: forward, statsInterval: statsInterval, clockInterval: logging.json ? fleet.clockInterval : .zero,
            reportFirstAudio: logging.json && reportFirstAudio, saveSDPDirectory: media.saveSDP, sdpDialect: .sip, login: user, drainTimeout: drainTimeout,
            metrics: metrics, earlyMedia: earlyMedia, agent: agent)
        let status = await answerer.run()
        await phone.close()
        await metricsFlags.linger(metrics)
        return status
    }
}

extension VertoCredentials {
    /// The login a password names; a token does not say.
    var login: String? {
        if case .password(let login, _) = self { return login }
        return nil
    }
}
