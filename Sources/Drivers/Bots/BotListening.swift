import Foundation
import Parley

/// A sound a bot listens for in what the far end sends.
public enum BotSound: Sendable, Equatable, CustomStringConvertible {
    /// The far end starts to speak (or to play anything louder than its background).
    case speech
    /// The far end stays quiet this long without a break.
    case silence(Duration)
    /// A tone of `frequency` Hz lasts at least `minimum`.
    case tone(frequency: Double, minimum: Duration)

    public var description: String {
        switch self {
        case .speech: "speech"
        case .silence(let length): "\(BotDurations.milliseconds(length)) ms of silence"
        case .tone(let frequency, _): "a \(BotDurations.hertz(frequency)) Hz tone"
        }
    }
}

/// Waits for a sound, then goes on; branches elsewhere when it does not come in time.
public struct BotWait: Sendable, Equatable {
    public var sound: BotSound
    public var timeout: Duration
    public var next: BotTarget
    public var onTimeout: BotTarget
    /// Set: the wait listens for these words, recording or keywords instead of `sound` (docs/speech.md).
    public var hearing: BotHearing?

    public init(sound: BotSound, timeout: Duration = .seconds(10), next: BotTarget, onTimeout: BotTarget = .hangup, hearing: BotHearing? = nil) {
        self.sound = sound
        self.hearing = hearing
        self.timeout = timeout
        self.next = next
        self.onTimeout = onTimeout
    }
}

/// A check for a tester: the sound, or the end of the call, must come within `within`; if it
/// does not, the call's verdict is failed, naming this step, and the bot hangs up.
public struct BotExpectation: Sendable, Equatable {
    public enum Event: Sendable, Equatable, CustomStringConvertible {
        case sound(BotSound)
        /// Words or a recorded prompt, in speech that starts after the step does (docs/speech.md).
        case heard(BotHearing)
        /// The call ends; with a cause (NORMAL_CLEARING, USER_BUSY…), with that one.
        case callEnd(cause: String?)

        public var description: String {
            switch self {
            case .sound(let sound): sound.description
            case .heard(let hearing): hearing.description
            case .callEnd(let cause?): "the call to end with \(cause)"
            case .callEnd(nil): "the call to end"
            }
        }
    }

    public var event: Event
    public var within: Duration
    public var next: BotTarget

    public init(event: Event, within: Duration = .seconds(10), next: BotTarget) {
        self.event = event
        self.within = within
        self.next = next
    }
}

/// Whether a call did what its script expected.
public enum BotVerdict: Sendable, Equatable, CustomStringConvertible {
    case passed
    /// The step that failed and why.
    case failed(step: String, reason: String)
    /// This side ended the call (`--duration`, Ctrl-C, a hangup command) while the script was
    /// at `step`: the test did not finish, so nothing is known of the far end (docs/bots.md,
    /// "Verdicts").
    case aborted(step: String, reason: String)

    public var description: String {
        switch self {
        case .passed: "passed"
        case .failed(let step, let reason): "failed at step \"\(step)\": \(reason)"
        case .aborted(let step, let reason): "aborted at step \"\(step)\": \(reason)"
        }
    }

    /// `passed`, `failed` or `aborted`: the word in `--json`, JUnit, CSV and metrics.
    public var name: String {
        switch self {
        case .passed: "passed"
        case .failed: "failed"
        case .aborted: "aborted"
        }
    }

    /// The step that failed or was cut short, and why; nil for a pass.
    public var failure: (step: String, reason: String)? {
        switch self {
        case .passed: nil
        case .failed(let step, let reason), .aborted(let step, let reason): (step, reason)
        }
    }
}

extension BotOutcome {
    /// The call's verdict. On the calling side (a tester), the far end hanging up where the
    /// script did not expect it fails the step it interrupted; when this side ended the call
    /// under the script (`stoppedBy` says how), the run is aborted instead, whatever the step
    /// made of the call's end (an `expect` that saw it end first, a `send` that could not send).
    public func verdict(callingSide: Bool, stoppedBy: String? = nil) -> BotVerdict {
        let step = steps.last ?? "(none)"
        switch ending {
        case .botHungUp, .forwarded: return .passed
        case .callerHungUp where callingSide && stoppedBy != nil, .failed where callingSide && stoppedBy != nil:
            return .aborted(step: step, reason: stoppedBy ?? "")
        case .callerHungUp: return callingSide ? .failed(step: step, reason: "the far end hung up") : .passed
        case .failed(.expectationFailed(let failedStep, let reason)): return .failed(step: failedStep, reason: reason)
        case .failed(let error): return .failed(step: step, reason: error.description)
        }
    }
}

enum BotDurations {
    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    static func hertz(_ frequency: Double) -> String {
        frequency == frequency.rounded() ? String(Int(frequency)) : String(frequency)
    }

    static func seconds(_ duration: Duration) -> String {
        let value = Double(milliseconds(duration)) / 1000
        return value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
