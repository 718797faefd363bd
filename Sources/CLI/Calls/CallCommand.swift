import ArgumentParser
import Drivers
import Foundation
import Logging
import Parley

struct CallCommand: LongRunningCommand {
    static let configuration = CommandConfiguration(
        commandName: "call",
        abstract: "Place a call and stay on it until it ends.",
        // One paragraph per line: ArgumentParser wraps each at the terminal's width.
        discussion: """
            On a terminal a status line shows the call; keys: \(CallKey.helpText). When standard input is not a \
            terminal (and not --play stdin), it takes one command per line: \(StandardInputCommand.helpText).

            Exit status: \(ExitStatus.callMeanings.map { "\($0.status) \($0.meaning)" }.joined(separator: "; ")).

            With --bot: 6 the bot's verdict is failed; 7 aborted (--duration, Ctrl-C or a hangup ended the call before the \
            script did). --junit FILE and --csv FILE write the call's verdict and figures for a CI server.

            Example: parley call bob --server ws://127.0.0.1:8080 --login alice --play tone:440 --record bob.wav --duration 10
            """
    )

    @Argument(help: "Who to call: a number, a SIP URI, or a login on the switch.")
    var destination: String

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var media: MediaFlags
    @OptionGroup var logging: LoggingFlags
    @OptionGroup var agentFlags: AgentFlags

    @Option(name: .customLong("header"), help: "A custom SIP header NAME=VALUE (repeatable), e.g. X-Account=42.")
    var headers: [String] = []

    @Option(help: "Digits to send once the call is active (0-9 * # A-D).")
    var dtmf: String?

    @Option(help: "Hang up this many seconds after the call became active.")
    var duration: Duration?

    @Option(help: "A bot script (YAML or JSON, docs/bots.md) to run on the call once it is active: a tester of the far end's IVR.")
    var bot: String?

    @OptionGroup var reports: ReportFileFlags
    @OptionGroup var feedback: FeedbackFlags

    @Option(help: "Caller id name.")
    var callerName = ""

    @Option(help: "Caller id number.")
    var callerNumber = ""

    @Option(help: "Seconds the call may ring unanswered before it ends no-answer (NO_ANSWER, exit status 8); 0: ring until the far end or the server ends it.")
    var ringTimeout: Duration = .seconds(60)

    @Option(help: "Seconds between --json stats events (0: only at the end).")
    var statsInterval: Duration = .seconds(5)

    @Flag(help: "SIP: place the call without registering first; the INVITE's 401 or 407 challenge is answered with the login's credentials.")
    var noRegister = false

    @Flag(help: "SIP: end the call with a 3xx redirect (REDIRECTION_TO_NEW_DESTINATION, exit status 1) instead of following its Contact with a new INVITE.")
    var noFollowRedirects = false

    @Flag(help: "SIP: send the INVITE without SDP (a delayed offer): the far end offers in its 200 and our ACK answers.")
    var delayedOffer = false

    func validate() throws {
        do throws(ParleyError) { _ = try feedback.given() } catch { throw ValidationError(error.message) }
        if let duration, duration <= .zero { throw ValidationError("--duration must be positive") }
        guard ringTimeout >= .zero else { throw ValidationError("--ring-timeout must not be negative") }
        guard statsInterval >= .zero else { throw ValidationError("--stats-interval must not be negative") }
        _ = try parsedHeaders()
        try MediaFlags.checkDTMF(dtmf)
        try media.checkProfile(speaksSIP: connection.speaksSIP)
        try media.checkOutput(json: logging.json)
        if bot != nil, dtmf != nil { throw ValidationError("--dtmf and --bot cannot go together: send digits with a send step") }
        if connection.speaksSIP {
            do throws(ParleyError) { try SIPPhone.check(try sipDialOptions()) } catch { throw ValidationError(error.message) }
            do throws(ParleyError) { try SIPPhone.check(destination: destination) } catch { throw ValidationError(error.message) }
        } else if noRegister || noFollowRedirects || delayedOffer {
            throw ValidationError("--no-register, --no-follow-redirects and --delayed-offer go with a SIP server")
        }
        if agentFlags.isSet, bot != nil || connection.dialect == .janus { throw ValidationError("--agent and --agent-exec go with Verto and SIP calls and without --bot") }
    }

    private func parsedHeaders() throws -> [CustomHeader] {
        try headers.map(HeaderOption.parse)
    }

    /// What our INVITE carries besides the offer: caller id, custom headers, the ring timeout.
    private func sipDialOptions() throws(ParleyError) -> DialOptions {
        var options = DialOptions()
        do {
            options.headers = try parsedHeaders()
        } catch {
            throw ParleyError(kind: .configuration, message: "\(error)")
        }
        options.callerName = callerName
        options.callerNumber = callerNumber
        options.ringTimeout = ringTimeout > .zero ? ringTimeout : nil
        options.followRedirects = !noFollowRedirects
        options.delayedOffer = delayedOffer
        return options
    }

    func runLongRunning() async throws {
        let presenter = CallPresenter(json: logging.json, revealDigits: logging.revealsSecrets)
        let profile: ConfigProfile?
        do { profile = try connection.checkLocalInputs(media: media) } catch {
            presenter.error(error.error)
            Foundation.exit(error.status)
        }
        let logger: Logger
        var mediaOptions: MediaOptions
        let botScript: BotScript?
        do {
            logger = try logging.bootstrap()
            presenter.logger = logger
            mediaOptions = try media.mediaOptions(profile: profile)
            botScript = try bot.map { path throws(ParleyError) in try BotScriptFile.load(path) }
            try reports.check()
        } catch {
            fail(error, presenter: presenter)
        }
        media.chooseTerminalAudio(&mediaOptions, json: logging.json, person: true, presenter: presenter)
        let botRunner = botScript.map { BotRunner(script: $0) }
        var recorder: SDPRecorder?
        if let directory = media.saveSDP {
            do {
                recorder = try SDPRecorder(directory: directory, dialect: connection.dialect == .janus ? .janus : connection.speaksSIP ? .sip : .verto,
                                           peer: destination)
            } catch {
                fail(error, presenter: presenter)
            }
            mediaOptions.sdpObserver = recorder?.observer
        }
        if connection.dialect == .janus {
            let server: WebSocketURL
            do { server = try connection.serverURL() } catch { fail(error, presenter: presenter) }
            recorder?.name("janus-" + destination)
            throw ExitCode(await runJanus(server: server, media: mediaOptions, bot: botRunner, logger: logger, presenter: presenter))
        }
        if connection.speaksSIP {
            throw ExitCode(await runSIP(media: mediaOptions, bot: botRunner, recorder: recorder, logger: logger, presenter: presenter))
        }
        let configuration: VoiceClientConfiguration
        do {
            configuration = try connection.clientConfiguration(media: mediaOptions)
        } catch {
            fail(error, presenter: presenter)
        }
        var options = DialOptions()
        options.headers = try parsedHeaders()
        options.callerName = callerName
        options.callerNumber = callerNumber
        options.ringTimeout = ringTimeout > .zero ? ringTimeout : nil

        let client = VoiceClient(configuration: configuration, logger: logger)
        presenter.note("connecting to \(configuration.server)")
        do {
            try await client.connect()
        } catch {
            reports.write([.setupFailed(error)], suite: "parley call \(destination)", presenter: presenter)
            fail(error, presenter: presenter)
        }
        // Only once logged in: a failed first connection ends the command, and the client's
        // news of it (a reconnect it schedules) must not print after the error.
        let clientEvents = client.events
        // Unstructured: shows the client's news while the call runs; cancelled by the defer below.
        let clientNews = Task {
            for await event in clientEvents { presenter.client(event) }
        }
        defer { clientNews.cancel() }
        presenter.note("logged in; calling \(destination)")
        // The program first: a call is not placed for a program that is not there.
        let agentSession: AgentSession?
        do {
            agentSession = try await connectAgent(media: configuration.media, into: &options)
        } catch {
            await client.disconnect()
            fail(error, presenter: presenter)
        }
        let call: Call
        do {
            call = try await client.dial(destination, options: options)
        } catch {
            recorder?.name("failed-call")
            await agentSession?.abandon(cause: "NOT_PLACED")
            await client.disconnect()
            reports.write([.setupFailed(error)], suite: "parley call \(destination)", presenter: presenter)
            fail(error, presenter: presenter)
        }
        recorder?.name(call.id)
        var session = CallSession(call: call, presenter: presenter, dtmf: dtmf, duration: duration, statsInterval: statsInterval, interactive: !logging.json,
                                  commandsFromStandardInput: media.playSpec != "stdin" && media.playSpec != "-",
                                  watchesInputLevel: !mediaOptions.source.isGenerated, bot: botRunner, logger: logger)
        if let agentSession { session.agent = (agentSession, callerNumber.isEmpty ? configuration.credentials.login ?? "" : callerNumber, destination, options.headers) }
        session.reports = (reports, "parley call \(destination)")
        session.feedback = (try? feedback.given(), feedback.feedback, feedback.log, client)
        // The second call of a three-way call plays and records nothing apart: while merged, the
        // first call's output carries both far ends.
        var secondOptions = options
        secondOptions.media = mediaOptions
        secondOptions.media?.sink = .null
        session.threeWay = ThreeWay(presenter: presenter) { [secondOptions] destination throws(ParleyError) in
            try await client.dial(destination, options: secondOptions)
        }
        let status = await session.run()
        await client.disconnect()
        throw ExitCode(status)
    }

    /// Janus has no login: the server URL and the destination (echotest, audiobridge:ROOM) say it all.
    private func runJanus(server: WebSocketURL, media mediaOptions: MediaOptions, bot: BotRunner?, logger: Logger, presenter: CallPresenter) async -> Int32 {
        let call: Call
        do {
            let target = try JanusDestination(parsing: destination)
            presenter.note("calling Janus \(target) at \(server)")
            call = try await Call.janus(url: server, destination: target, display: callerName.isEmpty ? "parley" : callerName, media: mediaOptions,
                                        logger: logger)
        } catch {
            fail(error, presenter: presenter)
        }
        var session = CallSession(call: call, presenter: presenter, dtmf: dtmf, duration: duration, statsInterval: statsInterval,
                                  interactive: !logging.json, commandsFromStandardInput: media.playSpec != "stdin" && media.playSpec != "-",
                                  watchesInputLevel: !mediaOptions.source.isGenerated, bot: bot, logger: logger)
        session.reports = (reports, "parley call \(destination)")
        session.feedback = (try? feedback.given(), feedback.feedback, feedback.log, nil)
        return await session.run()
    }

    /// SIP: register at the server (not with `--no-register`), INVITE the destination, and drive the call as any other.
    private func runSIP(media mediaOptions: MediaOptions, bot: BotRunner?, recorder: SDPRecorder?, logger: Logger, presenter: CallPresenter) async -> Int32 {
        let phone: SIPPhone
        let call: Call
        do {
            let account = try connection.sipAccount()
            if noRegister {
                presenter.note("connecting to \(account.server) as \(account.user)@\(account.domain), without registering")
                phone = try await SIPPhone.connect(server: account.server, user: account.user, domain: account.domain, password: account.password,
                                                   media: mediaOptions, tls: account.tls, clientCertificate: account.clientCertificate, logger: logger)
            } else {
                presenter.note("registering \(account.user)@\(account.domain) at \(account.server)")
                phone = try await SIPPhone.register(server: account.server, user: account.user, domain: account.domain, password: account.password,
                                                    media: mediaOptions, tls: account.tls, clientCertificate: account.clientCertificate, logger: logger)
            }
            await phone.keepCalls(try connection.reconnectionPolicy())
        } catch {
            reports.write([.setupFailed(error)], suite: "parley call \(destination)", presenter: presenter)
            fail(error, presenter: presenter)
        }
        presenter.note(noRegister ? "calling \(destination)" : "registered; calling \(destination)")
        let agentSession: AgentSession?
        var options: DialOptions
        do {
            options = try sipDialOptions()
            // The program first, as for Verto.
            agentSession = try await connectAgent(media: mediaOptions, into: &options)
        } catch {
            await phone.close()
            fail(error, presenter: presenter)
        }
        do {
            call = try await phone.dial(destination, options: options)
        } catch {
            recorder?.name("failed-call")
            await agentSession?.abandon(cause: "NOT_PLACED")
            await phone.close()
            reports.write([.setupFailed(error)], suite: "parley call \(destination)", presenter: presenter)
            fail(error, presenter: presenter)
        }
        recorder?.name(call.id)
        var session = CallSession(call: call, presenter: presenter, dtmf: dtmf, duration: duration, statsInterval: statsInterval,
                                  interactive: !logging.json, commandsFromStandardInput: media.playSpec != "stdin" && media.playSpec != "-",
                                  watchesInputLevel: !mediaOptions.source.isGenerated, bot: bot, logger: logger)
        if let agentSession { session.agent = (agentSession, callerNumber.isEmpty ? connection.login ?? "" : callerNumber, destination, options.headers) }
        session.reports = (reports, "parley call \(destination)")
        let news = phone.clientEvents
        // Unstructured: the phone's own news (its flow reconnecting, or giving up) while the call runs; cancelled after it.
        let relay = Task {
            for await event in news {
                switch event {
                case .error(let error): presenter.error(error)
                case .incomingCall: continue
                default: presenter.client(event)
                }
            }
        }
        let status = await session.run()
        relay.cancel()
        await phone.close()
        return status
    }

    /// `--agent`/`--agent-exec`: the program's session, and the call's audio at its rate (Opus
    /// runs at it, nothing resamples); nil without either flag.
    private func connectAgent(media mediaOptions: MediaOptions, into options: inout DialOptions) async throws(ParleyError) -> AgentSession? {
        try agentFlags.startPlatformAPI()
        guard let endpoint = try agentFlags.endpoint(tls: connection) else { return nil }
        let session = try await AgentSession.connect(endpoint)
        options.media = mediaOptions
        options.media?.audioRate = session.callAudioRate
        return session
    }

    private func fail(_ error: ParleyError, presenter: CallPresenter) -> Never {
        presenter.error(error)
        Foundation.exit(ExitStatus.forSetup(error))
    }
}
