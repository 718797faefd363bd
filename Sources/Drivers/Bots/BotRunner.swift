import Foundation
import Logging
import Media
import Locking
import Parley

/// Runs a `BotScript` on one call. A runner holds no per-call state, so one runner can serve
/// many calls at once.
public struct BotRunner: Sendable {
    public let script: BotScript
    /// Where relative recording paths go.
    public let recordDirectory: String

    public init(script: BotScript, recordDirectory: String = ".") {
        self.script = script
        self.recordDirectory = recordDirectory
    }

    /// Runs the script until it hangs up, the call ends, or the bot fails; hangs up the call in
    /// every case but the caller hanging up. Consumes `call.digits`.
    package func run(on call: any BotCallControl, logger: Logger) async -> BotOutcome {
        let inbox = DigitInbox()
        let digits = call.digits
        // Unstructured: feeds digits in while the bot's steps run in this task; cancelled when the run returns.
        let pump = Task {
            for await digit in digits { await inbox.push(digit) }
            await inbox.finish()
        }
        var run = BotRun(script: script, recordDirectory: recordDirectory, call: call, inbox: inbox, logger: logger)
        let ending = await run.execute()
        pump.cancel()
        let outcome = BotOutcome(steps: run.trail.names, stepsVisited: run.trail.visited, digits: await inbox.received,
                                 digitsReceived: await inbox.receivedCount, recordings: run.recordings, ending: ending)
        logger.info("bot finished", metadata: [
            "call": .string(call.callID), "ending": .string(ending.loggedDescription),
            "steps": .string(outcome.stepsText(separator: ",")), "recordings": .stringConvertible(outcome.recordings.count),
        ])
        // Digits can be PINs: only at debug level.
        logger.debug("bot digits", metadata: ["call": .string(call.callID), "digits": .string(String(outcome.digits))])
        return outcome
    }
}

/// The state of one call's run. Listening steps are in BotRun+Listening.swift.
struct BotRun {
    enum StepResult {
        case go(BotTarget)
        case end(BotOutcome.Ending)
    }

    enum Entry {
        case digits(String)
        case timedOut
        case ended
        case cancelled
    }

    /// A record step stops on its deadline; this bounds how many other digits it skips before.
    static let maximumIgnoredDigits = 10_000

    let script: BotScript
    let recordDirectory: String
    let call: any BotCallControl
    let inbox: DigitInbox
    let logger: Logger
    var trail = BotStepTrail()
    var recordings: [BotRecordingResult] = []
    /// The last menu entry, for `{digits}` in spoken prompts.
    var lastEntry = ""
    /// Whether the step before the one under way pressed keys: a barge-in IVR cuts its prompt
    /// at the key and answers at once, so the next `heard:` step hears the speech under way
    /// (docs/speech.md, "How a call is heard").
    var followsKeyPress = false

    init(script: BotScript, recordDirectory: String, call: any BotCallControl, inbox: DigitInbox, logger: Logger) {
        self.script = script
        self.recordDirectory = recordDirectory
        self.call = call
        self.inbox = inbox
        self.logger = logger
    }

    mutating func execute() async -> BotOutcome.Ending {
        var target = BotTarget.step(script.start)
        while case .step(let name) = target {
            guard trail.visited < script.maxSteps else { return await fail(.stepLimit(script.maxSteps)) }
            guard let step = script.steps[name] else { return await fail(.unknownStep(name)) }
            guard !Task.isCancelled else { return await fail(.cancelled) }
            trail.append(name)
            logger.debug("bot step", metadata: ["call": .string(call.callID), "step": .string(name)])
            let result = await perform(step, named: name)
            if case .send = step { followsKeyPress = true } else { followsKeyPress = false }
            switch result {
            case .go(let next): target = next
            case .end(let ending): return ending
            }
        }
        await call.hangup()
        return .botHungUp
    }

    func fail(_ error: BotRunError) async -> BotOutcome.Ending {
        logger.warning("bot failed", metadata: ["call": .string(call.callID), "reason": .string(error.description)])
        await call.hangup()
        return .failed(error)
    }

    private mutating func perform(_ step: BotStep, named name: String) async -> StepResult {
        switch step {
        case .play(let prompt, let next):
            return await play(prompt) ?? .go(next)
        case .hangup(let prompt):
            if let prompt, let ended = await play(prompt) { return ended }
            return .go(.hangup)
        case .menu(let menu):
            return await runMenu(menu, named: name)
        case .record(let recording):
            return await record(recording, named: name)
        case .wait(let waiting):
            return await wait(for: waiting, named: name)
        case .expect(let expectation):
            return await expect(expectation, named: name)
        case .send(let digits, let next):
            return await send(digits, next: next)
        case .forward(let prompt, let destination):
            if let prompt, let ended = await play(prompt) { return ended }
            if let refusal = await call.forward(to: destination) { return .end(await fail(.forwardFailed(destination: destination, reason: refusal))) }
            return .end(.forwarded(to: destination))
        }
    }

    /// nil when the prompt played to the end; otherwise how the step ends.
    private func play(_ prompt: BotPrompt) async -> StepResult? {
        var playable = prompt
        if prompt.speaks {
            do {
                playable = try await prompt.prepared(values: ["caller": call.remoteParty, "digits": lastEntry])
            } catch {
                return .end(await fail(.promptFailed(error.description)))
            }
        }
        let finished: Bool
        do {
            if case .bargeIn(let inner) = playable {
                finished = try await playUntilInterrupted(inner)
            } else {
                finished = try await call.play(playable)
            }
        } catch {
            return .end(await fail(.promptFailed(error.description)))
        }
        // A cancelled bot may cut its prompt short; that is not the caller hanging up.
        guard !Task.isCancelled else { return .end(await fail(.cancelled)) }
        return finished ? nil : .end(.callerHungUp)
    }

    /// Plays `prompt` until it ends or the caller barges in: a key (already pressed or pressed
    /// now; the digit stays for the next menu) or the onset of speech. True unless the call ended.
    private func playUntilInterrupted(_ prompt: BotPrompt) async throws(AudioError) -> Bool {
        let interruption = Interruption()
        let call = self.call
        // One barge-in, one stop: a key that comes after speech already stopped the prompt (or
        // speech after a key) while the prompt is winding down must not stop anything again.
        let interrupt: @Sendable () -> Void = {
            if interruption.happen() { call.stopPrompt() }
        }
        call.armBargeIn(onSpeech: interrupt)
        await inbox.watch(interrupt)
        // Armed, a stop that comes before the prompt starts still stops it.
        let finished: Bool
        do {
            finished = try await call.play(prompt)
        } catch {
            call.disarmBargeIn()
            await inbox.unwatch()
            throw error
        }
        call.disarmBargeIn()
        await inbox.unwatch()
        if interruption.happened {
            logger.debug("bot prompt interrupted", metadata: ["call": .string(call.callID)])
            return true
        }
        return finished
    }

    private mutating func runMenu(_ menu: BotMenu, named name: String) async -> StepResult {
        var lastFailure = menu.onTimeout
        for attempt in 0...menu.retries {
            if let ended = await play(menu.prompt) { return ended }
            switch await collectEntry(menu) {
            case .digits(let entry):
                lastEntry = entry
                if let target = menu.options[entry] { return .go(target) }
                logger.debug("bot invalid entry", metadata: ["call": .string(call.callID), "step": .string(name), "entry": .string(entry), "attempt": .stringConvertible(attempt + 1)])
                lastFailure = menu.onInvalid
            case .timedOut:
                logger.debug("bot menu timeout", metadata: ["call": .string(call.callID), "step": .string(name), "attempt": .stringConvertible(attempt + 1)])
                lastFailure = menu.onTimeout
            case .ended:
                return .end(.callerHungUp)
            case .cancelled:
                return .end(await fail(.cancelled))
            }
        }
        return .go(lastFailure)
    }

    /// One entry: a single digit, or with `maxDigits` > 1 up to that many, ended early by the
    /// terminator or by `timeout` passing between digits.
    private func collectEntry(_ menu: BotMenu) async -> Entry {
        var entry = ""
        while entry.count < menu.maxDigits {
            switch await inbox.next(before: .now + menu.timeout) {
            case .digit(let digit):
                if menu.maxDigits > 1, digit == menu.terminator { return .digits(entry) }
                entry.append(digit)
            case .timedOut: return entry.isEmpty ? .timedOut : .digits(entry)
            case .ended: return .ended
            case .cancelled: return .cancelled
            }
        }
        return .digits(entry)
    }

    private mutating func record(_ recording: BotRecording, named name: String) async -> StepResult {
        if let prompt = recording.prompt, let ended = await play(prompt) { return ended }
        // Only a stop digit pressed while recording counts; earlier presses were for the prompt.
        await inbox.discardBuffered()
        let path = RecordingPath.resolve(template: recording.pathTemplate, callID: call.callID, time: Date(),
                                         number: recordings.count + 1, directory: recordDirectory)
        do {
            try call.startRecording(path: path)
        } catch {
            return .end(await fail(.recordingFailed(path: path, reason: "\(error)")))
        }
        logger.info("bot recording", metadata: ["call": .string(call.callID), "step": .string(name), "path": .string(path)])
        let started = ContinuousClock.now
        let deadline = started + recording.maxDuration
        var stop = BotRecordingResult.Stop.maxDuration
        var cancelled = false
        waiting: for _ in 0...Self.maximumIgnoredDigits {
            switch await inbox.next(before: deadline) {
            case .digit(let digit) where digit == recording.stopDigit:
                stop = .digit(digit)
                break waiting
            case .digit:
                continue
            case .timedOut:
                break waiting
            case .ended:
                stop = .callEnded
                break waiting
            case .cancelled:
                stop = .callEnded
                cancelled = true
                break waiting
            }
        }
        call.stopRecording()
        recordings.append(BotRecordingResult(step: name, path: path, duration: ContinuousClock.now - started, stoppedBy: stop))
        if cancelled { return .end(await fail(.cancelled)) }
        if stop == .callEnded { return .end(.callerHungUp) }
        return .go(recording.next)
    }
}

/// Whether the caller barged in; set from the digit inbox or the media clock thread.
private final class Interruption: Sendable {
    private let state = Lock(false)

    /// Marks the barge-in; true only the first time.
    func happen() -> Bool {
        state.withLock { happened in
            defer { happened = true }
            return !happened
        }
    }
    var happened: Bool { state.withLock { $0 } }
}
