import Parley

/// Why a bot stopped before the script ended the call.
public enum BotRunError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The call visited `maxSteps` steps: the script loops with no way out.
    case stepLimit(Int)
    /// Only for scripts built in code: a target that names no step.
    case unknownStep(String)
    case recordingFailed(path: String, reason: String)
    /// A prompt could not be built: a `say` prompt espeak-ng could not speak, a WAV that cannot
    /// be read or is too long.
    case promptFailed(String)
    /// The task running the bot was cancelled.
    case cancelled
    /// An `expect` step did not hear what it expected in time.
    case expectationFailed(step: String, reason: String)
    /// A `send` step could not send its digits.
    case sendFailed(String)
    /// A forward step's destination was refused.
    case forwardFailed(destination: String, reason: String)

    public var description: String {
        switch self {
        case .stepLimit(let limit): "the bot visited \(limit) steps without ending the call; the script loops (raise max_steps if that is meant)"
        case .unknownStep(let name): "the script goes to \"\(name)\", which is not a step"
        case .recordingFailed(let path, let reason): "cannot record to \(path): \(reason)"
        case .promptFailed(let reason): "cannot play a prompt: \(reason)"
        case .cancelled: "the bot was stopped"
        case .expectationFailed(let step, let reason): "step \"\(step)\": \(reason)"
        case .sendFailed(let reason): "cannot send digits: \(reason)"
        case .forwardFailed(let destination, let reason): "cannot forward the call to \(destination): \(reason)"
        }
    }
}

/// One recording a record step made.
public struct BotRecordingResult: Sendable, Equatable {
    public enum Stop: Sendable, Equatable {
        case digit(Character)
        case maxDuration
        case callEnded
    }

    public var step: String
    public var path: String
    public var duration: Duration
    public var stoppedBy: Stop

    public init(step: String, path: String, duration: Duration, stoppedBy: Stop) {
        self.step = step
        self.path = path
        self.duration = duration
        self.stoppedBy = stoppedBy
    }
}

/// What happened on one call the bot handled.
public struct BotOutcome: Sendable, Equatable {
    public enum Ending: Sendable, Equatable, CustomStringConvertible {
        /// The script hung up (a hangup step or target).
        case botHungUp
        /// The call ended first: a prompt could not finish, or the digit stream finished.
        case callerHungUp
        /// The bot hung up because of this.
        case failed(BotRunError)
        /// A forward step sent the caller on; the bot's call ended `session-completed`.
        case forwarded(to: String)

        public var description: String {
            switch self {
            case .botHungUp: "bot hung up"
            case .callerHungUp: "caller hung up"
            case .failed(let error): "failed: \(error)"
            case .forwarded(let destination): "bot forwarded the call to \(destination)"
            }
        }
    }

    /// Step names in the order they ran; a step entered twice appears twice. A call that
    /// visited more than 256 steps keeps the first 128 and the last 128: `stepsOmitted` were
    /// visited between them.
    public var steps: [String]
    /// How many steps the call visited, those left out of `steps` included.
    public var stepsVisited: Int
    /// Every digit the caller pressed, in order, including ignored ones; at most the first
    /// `DigitInbox.keptDigits` (`digitsReceived` counts them all).
    public var digits: [Character]
    /// How many digits the caller pressed.
    public var digitsReceived: Int
    public var recordings: [BotRecordingResult]
    public var ending: Ending

    /// `stepsVisited` and `digitsReceived` default to the counts of `steps` and `digits`.
    public init(steps: [String], stepsVisited: Int? = nil, digits: [Character], digitsReceived: Int? = nil,
                recordings: [BotRecordingResult], ending: Ending) {
        self.steps = steps
        self.stepsVisited = max(stepsVisited ?? steps.count, steps.count)
        self.digits = digits
        self.digitsReceived = max(digitsReceived ?? digits.count, digits.count)
        self.recordings = recordings
        self.ending = ending
    }

    /// Steps visited but not in `steps` (after its first half).
    public var stepsOmitted: Int { stepsVisited - steps.count }

    /// The steps joined by `separator`, with the count of those left out where they were.
    public func stepsText(separator: String) -> String {
        guard stepsOmitted > 0 else { return steps.joined(separator: separator) }
        let half = steps.count / 2
        return (steps[..<half] + ["… \(stepsOmitted) more …"] + steps[half...]).joined(separator: separator)
    }
}
