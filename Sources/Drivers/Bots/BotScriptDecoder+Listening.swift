import Media
import Parley

/// The `wait`, `expect` and `send` steps (docs/bots.md, "Listening" and "Testing an IVR").
extension BotScriptDecoder {
    static let listeningStepTypes = ["wait", "expect", "send"]
    static let listeningStepKeys: [String: [String]] = [
        "wait": ["type", "for", "ms", "frequency", "min_ms", "timeout", "next", "on_timeout", "heard", "accuracy", "prompt", "similarity", "keywords"],
        "expect": ["type", "for", "ms", "frequency", "min_ms", "cause", "within", "next", "heard", "accuracy", "prompt", "similarity"],
        "send": ["type", "digits", "next"],
    ]
    static let sounds = ["speech", "silence", "tone"]
    /// Longest a silence or a tone must last to count: one minute.
    static let longestSoundMilliseconds = 60_000

    func listeningStep(type: String, _ body: Fields, context: String, line: Int?) throws(BotScriptError) -> BotStep {
        switch type {
        case "wait":
            let hearing = try hearing(body, context: context, line: line, allowKeywords: true)
            let next: BotTarget
            if case .keywords = hearing {
                if let extra = body["next"] { throw failure(.invalidValue, extra.line, "\(context): a wait on keywords goes where the keyword heard leads, not to next") }
                next = .hangup
            } else {
                next = try target(required: "next", body, context: context, line: line)
            }
            var wait = BotWait(sound: hearing == nil ? try sound(body, context: context, line: line, allowHangup: false) ?? .speech : .speech,
                               next: next, hearing: hearing)
            if let entry = body["timeout"] { wait.timeout = try duration(entry, context: "the timeout of \(context)", allowZero: false) }
            if let entry = body["on_timeout"] { wait.onTimeout = try target(entry, context: "on_timeout of \(context)") }
            return .wait(wait)
        case "expect":
            let event: BotExpectation.Event
            if let hearing = try hearing(body, context: context, line: line, allowKeywords: false) {
                if let cause = body["cause"] { throw failure(.invalidValue, cause.line, "\(context): cause goes with for: hangup") }
                event = .heard(hearing)
            } else if let sound = try sound(body, context: context, line: line, allowHangup: true) {
                if let cause = body["cause"] { throw failure(.invalidValue, cause.line, "\(context): cause goes with for: hangup") }
                event = .sound(sound)
            } else {
                event = .callEnd(cause: try body["cause"].map { entry throws(BotScriptError) in try causeName(entry, context: context) })
            }
            var expectation = BotExpectation(event: event, next: .hangup)
            if let entry = body["within"] { expectation.within = try duration(entry, context: "within of \(context)", allowZero: false) }
            if let entry = body["next"] { expectation.next = try target(entry, context: "next of \(context)") }
            return .expect(expectation)
        default:
            guard let entry = body["digits"] else { throw failure(.missingKey, line, "\(context) has no \"digits\"") }
            let digits = try text(entry, context: "the digits of \(context)")
            guard (1...64).contains(digits.count), digits.allSatisfy(Self.digits.contains) else {
                throw failure(.badDigit, entry.line, "the digits of \(context) must be 1 to 64 of 0-9, *, #, A-D (quote # and *)")
            }
            return .send(digits: digits, next: try target(required: "next", body, context: context, line: line))
        }
    }

    /// The sound named by `for` (nil: `for: hangup`), with its `ms`, `frequency` and `min_ms`.
    private func sound(_ body: Fields, context: String, line: Int?, allowHangup: Bool) throws(BotScriptError) -> BotSound? {
        let choices = Self.sounds + (allowHangup ? ["hangup"] : [])
        guard let entry = body["for"] else {
            throw failure(.missingKey, line, "\(context) has no \"for\"; use one of: \(choices.joined(separator: ", "))")
        }
        let kind = try text(entry, context: "for of \(context)")
        guard choices.contains(kind) else {
            throw failure(.invalidValue, entry.line, "\(context) waits for \"\(kind)\"; use one of: \(choices.joined(separator: ", "))")
        }
        let keys = ["silence": ["ms"], "tone": ["frequency", "min_ms"]][kind] ?? []
        for key in ["ms", "frequency", "min_ms"] where !keys.contains(key) {
            if let extra = body[key] { throw failure(.invalidValue, extra.line, "\(context): \(key) does not go with for: \(kind)") }
        }
        switch kind {
        case "speech": return .speech
        case "silence":
            guard let entry = body["ms"] else { throw failure(.missingKey, line, "\(context) waits for silence with no \"ms\" (how long)") }
            return .silence(.milliseconds(try integer(entry, context: "ms of \(context)", in: 20...Self.longestSoundMilliseconds)))
        case "tone":
            guard let entry = body["frequency"] else { throw failure(.missingKey, line, "\(context) waits for a tone with no \"frequency\"") }
            let raw = try text(entry, context: "the frequency of \(context)")
            // Up to 3900 Hz: below half the narrowest codec rate (G.711, 8 kHz).
            guard let hertz = Double(raw), (50...3900).contains(hertz) else {
                throw failure(.invalidValue, entry.line, "the frequency of \(context) must be 50-3900 Hz, found \"\(raw)\"")
            }
            var minimum = ToneDetector.defaultMinimum
            if let entry = body["min_ms"] {
                minimum = .milliseconds(try integer(entry, context: "min_ms of \(context)", in: 20...Self.longestSoundMilliseconds))
            }
            return .tone(frequency: hertz, minimum: minimum)
        default: return nil
        }
    }

    private func causeName(_ entry: ScriptEntry, context: String) throws(BotScriptError) -> String {
        let cause = try text(entry, context: "the cause of \(context)")
        guard !cause.isEmpty, cause.count <= 64, cause.allSatisfy({ $0.isUppercase || $0 == "_" || $0.isNumber }) else {
            throw failure(.invalidValue, entry.line, "the cause of \(context) must be a cause name like NORMAL_CLEARING or USER_BUSY, found \"\(cause)\"")
        }
        return cause
    }
}
