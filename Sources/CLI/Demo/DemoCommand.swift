import ArgumentParser
import Drivers
import Foundation
import Logging
import Parley
import Switch

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Call the embedded switch's IVR bot over loopback and navigate its menu. No account, no network.",
        discussion: """
            Starts the embedded switch and an IVR bot in this process, dials the bot with real ICE (on lo), \
            DTLS-SRTP and Opus, presses 1 (sales) then 9 (goodbye), records what the bot says to demo.wav, \
            and prints the call's states, statistics and what the recording holds.
            """
    )

    @Option(help: "Where to record what the bot says.")
    var output = "demo.wav"

    @OptionGroup var logging: LoggingFlags

    func validate() throws {
        do {
            try AudioSinkSpec.wav(path: output, stereo: false).check()
        } catch {
            throw ValidationError("--output: \(error)")
        }
    }

    func run() async throws {
        let presenter = CallPresenter(json: logging.json, revealDigits: logging.revealsSecrets)
        do {
            let logger = try logging.bootstrap()
            presenter.logger = logger
            let status = try await DemoRun(output: output, presenter: presenter, logger: logger).run()
            throw ExitCode(status)
        } catch let error as ParleyError {
            presenter.error(error)
            throw ExitCode(ExitStatus.forSetup(error))
        }
    }
}

/// The demo's steps, each reported as it happens.
struct DemoRun {
    let output: String
    let presenter: CallPresenter
    let logger: Logger

    func run() async throws -> Int32 {
        // Fresh each run: nothing outside this process ever logs in.
        let passwords = (demo: Self.randomSecret(), ivr: Self.randomSecret())
        let embedded: EmbeddedSwitch
        do {
            embedded = try await EmbeddedSwitch.start(
                listen: WebSocketURL(parsing: "ws://127.0.0.1:0"),
                configuration: SwitchConfiguration(accounts: [
                    SwitchAccount(login: "demo", password: passwords.demo), SwitchAccount(login: "ivr", password: passwords.ivr),
                ]))
        } catch {
            throw ParleyError(kind: .socket, message: "could not start the embedded switch: \(error)")
        }
        presenter.note("embedded switch listening on \(embedded.url)")

        let bot = try await startBot(at: embedded.url, password: passwords.ivr)
        presenter.note("IVR bot logged in as ivr")
        var media = Self.loopbackMedia()
        media.sink = .wav(path: output, stereo: false)
        var configuration = VoiceClientConfiguration(server: embedded.url, credentials: .password(login: "demo", password: passwords.demo))
        configuration.media = media
        configuration.callerNumber = "demo"
        let caller = VoiceClient(configuration: configuration, logger: logger)
        try await caller.connect()
        presenter.note("caller logged in as demo; dialling ivr")
        let call = try await caller.dial("ivr")
        // Unstructured: navigates the menu while this task prints the call's events; cancelled when the call ends.
        let navigation = Task { await navigate(call) }
        for await event in call.events { presenter.event(call.id, event) }
        let reason = await call.waitUntilDone()
        navigation.cancel()
        let statistics = await call.statistics()
        presenter.stats(call.id, statistics)
        presenter.ended(call.id, reason, statistics: statistics)
        await caller.disconnect()
        await bot.disconnect()
        await embedded.stop()
        summarizeRecording()
        return ExitStatus.forEnd(reason, failure: await call.failure)
    }

    /// The bot: a second client that answers every call with the demo script.
    private func startBot(at url: WebSocketURL, password: String) async throws -> VoiceClient {
        let script: BotScript
        do {
            script = try BotScript.parse(text: DemoScript.yaml, format: .yaml, baseDirectory: FileManager.default.currentDirectoryPath)
        } catch {
            throw ParleyError(kind: .configuration, message: "the demo script: \(error)")
        }
        var configuration = VoiceClientConfiguration(server: url, credentials: .password(login: "ivr", password: password))
        configuration.media = Self.loopbackMedia()
        let bot = VoiceClient(configuration: configuration, logger: logger)
        try await bot.connect()
        let events = bot.events
        let logger = logger
        // Unstructured: the demo's answering bot serves for the life of the process.
        Task {
            for await event in events {
                guard case .incomingCall(let incoming) = event else { continue }
                // Unstructured: each incoming call runs its bot on its own, so one call never holds up the next.
                Task {
                    do {
                        try await incoming.answer()
                        let outcome = await incoming.call.runBot(BotRunner(script: script), logger: logger)
                        logger.info("bot: \(outcome.ending), steps \(outcome.steps)")
                    } catch {
                        logger.error("bot could not answer: \(error)")
                    }
                }
            }
        }
        return bot
    }

    /// Presses 1 once the welcome menu has played, then 9 once the sales prompt and the menu
    /// after it have played: each time when the prompt's audio has stopped arriving.
    private func navigate(_ call: Call) async {
        for digit in ["1", "9"] {
            guard await promptEnded(on: call, within: .seconds(10)) else { return }
            presenter.note("pressing \(digit)")
            do {
                try await call.sendDTMF(digit)
                presenter.sent(call.id, digits: digit)
            } catch {
                presenter.error(error, call: call.id)
                return
            }
        }
    }

    /// True once sound has arrived and then stopped for 200 ms; false on timeout or call end.
    private func promptEnded(on call: Call, within limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        var heard = false
        var quietPolls = 0
        while ContinuousClock.now < deadline, !Task.isCancelled {
            guard !(await call.state.isDone) else { return false }
            let level = await call.statistics().audio?.audioLevel ?? 0
            if level > 0.05 {
                heard = true
                quietPolls = 0
            } else if heard, level < 0.01 {
                quietPolls += 1
                if quietPolls >= 4 { return true }
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// Which prompts the recording holds, in order, by their tone.
    private func summarizeRecording() {
        guard let segments = try? RecordingSummary.segments(path: output, prompts: DemoScript.prompts), !segments.isEmpty else {
            presenter.note("\(output): no prompt audio found")
            return
        }
        presenter.note("\(output) holds: " + segments.map { "\($0.name) (\(Int($0.frequency)) Hz, \(String(format: "%.1f", $0.seconds)) s)" }.joined(separator: ", "))
        if presenter.json { JSONEvents.emit("recording", RecordingPayload(path: output, prompts: segments.map(\.name))) }
    }

    static func loopbackMedia() -> MediaOptions {
        var media = MediaOptions()
        media.allowedInterfaces = ["lo"]
        media.ipv6 = false
        return media
    }

    static func randomSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(generator.next(), radix: 36)
    }
}

struct RecordingPayload: Encodable {
    let path: String
    let prompts: [String]
}
