import Foundation
import Media
import Yams
import Parley

/// Gives a Yams node tree its meaning as a `BotScript`, checking every key, value, digit, target
/// and prompt file; the first problem becomes a `BotScriptError` naming the line.
struct BotScriptDecoder {
    static let digits: Set<Character> = Set("0123456789*#ABCD")
    static let topKeys = ["start", "steps", "max_steps", "description"]
    static let stepKeys: [String: [String]] = [
        "menu": ["type", "prompt", "options", "timeout", "retries", "on_timeout", "on_invalid", "max_digits", "terminator", "barge_in"],
        "play": ["type", "prompt", "next", "barge_in"],
        "record": ["type", "prompt", "path", "max_seconds", "stop_digit", "next", "barge_in"],
        "hangup": ["type", "prompt"],
        "say": ["type", "text", "voice", "rate", "pitch", "next", "barge_in"],
        "forward": ["type", "prompt", "to"],
    ].merging(listeningStepKeys) { first, _ in first }
    static let stepTypes = ["menu", "play", "say", "record", "hangup", "forward"] + listeningStepTypes
    static let speechKeys = ["voice", "rate", "pitch"]
    /// The longest a timeout, recording or prompt part may be: one hour.
    static let longestSeconds = 3600.0

    let file: String
    let baseDirectory: String
    private var stepNames: Set<String> = []

    init(file: String, baseDirectory: String) {
        self.file = file
        self.baseDirectory = baseDirectory
    }

    func failure(_ kind: BotScriptError.Kind, _ line: Int?, _ message: String) -> BotScriptError {
        BotScriptError(kind, file: file, line: line, message)
    }

    mutating func decode(_ root: Node?) throws(BotScriptError) -> BotScript {
        guard let root else {
            throw failure(.invalidValue, nil, "the script must be a mapping of keys to values, found nothing")
        }
        let top = try fields(root, context: "the script")
        try top.rejectUnknown(allowed: Self.topKeys, decoder: self)
        guard let stepsEntry = top["steps"] else { throw failure(.missingKey, root.line, "the script has no \"steps\"") }
        let notSteps = failure(.invalidValue, stepsEntry.line, "\"steps\" must be a mapping of step names to steps, with at least one step")
        guard case .mapping = stepsEntry.value else { throw notSteps }
        let stepEntries = try fields(stepsEntry.value, context: "\"steps\"").entries
        guard !stepEntries.isEmpty else { throw notSteps }
        for entry in stepEntries {
            guard entry.key != "hangup" else {
                throw failure(.invalidValue, entry.line, "\"hangup\" is reserved as a target; give the step another name")
            }
            guard !entry.key.isEmpty else { throw failure(.invalidValue, entry.line, "a step with an empty name") }
        }
        stepNames = Set(stepEntries.map(\.key))

        guard let startEntry = top["start"] else { throw failure(.missingKey, root.line, "the script has no \"start\" step") }
        let start = try text(startEntry, context: "start")
        guard stepNames.contains(start) else {
            throw failure(.unknownTarget, startEntry.line, "start names \"\(start)\", which is not a step; steps: \(knownSteps)")
        }
        var maxSteps = BotScript.defaultMaxSteps
        if let entry = top["max_steps"] { maxSteps = try integer(entry, context: "max_steps", in: 1...1_000_000) }
        var description: String?
        if let entry = top["description"] { description = try text(entry, context: "description") }

        var steps: [String: BotStep] = [:]
        for entry in stepEntries { steps[entry.key] = try step(named: entry.key, entry) }
        return BotScript(start: start, steps: steps, maxSteps: maxSteps, description: description)
    }

    private var knownSteps: String { stepNames.sorted().joined(separator: ", ") }

    // MARK: Steps

    private func step(named name: String, _ entry: ScriptEntry) throws(BotScriptError) -> BotStep {
        let context = "step \"\(name)\""
        let body = try fields(entry.value, context: context)
        guard let typeEntry = body["type"] else {
            throw failure(.missingKey, entry.line, "\(context) has no \"type\"; use one of: \(Self.stepTypes.joined(separator: ", "))")
        }
        let type = try text(typeEntry, context: "the type of \(context)")
        guard let allowed = Self.stepKeys[type] else {
            throw failure(.invalidValue, typeEntry.line, "\(context) has type \"\(type)\"; use one of: \(Self.stepTypes.joined(separator: ", "))")
        }
        try body.rejectUnknown(allowed: allowed, decoder: self, what: "\(context) (a \(type))")

        let bargeIn = try body["barge_in"].map { entry throws(BotScriptError) in try flag(entry, context: "barge_in of \(context)") } ?? false
        switch type {
        case "menu":
            var menu = try menu(body, context: context, line: entry.line)
            if bargeIn { menu.prompt = .bargeIn(menu.prompt) }
            return .menu(menu)
        case "play":
            let prompt = try prompt(required: body, context: context, line: entry.line)
            return .play(prompt: bargeIn ? .bargeIn(prompt) : prompt, next: try target(required: "next", body, context: context, line: entry.line))
        case "record":
            var recording = try recording(body, context: context, line: entry.line)
            if bargeIn, let prompt = recording.prompt { recording.prompt = .bargeIn(prompt) }
            return .record(recording)
        case "say":
            guard let textEntry = body["text"] else { throw failure(.missingKey, entry.line, "\(context) has no \"text\"") }
            let prompt = BotPrompt.say(try speech(textEntry, voiceFrom: body, context: context))
            return .play(prompt: bargeIn ? .bargeIn(prompt) : prompt, next: try target(required: "next", body, context: context, line: entry.line))
        case "wait", "expect", "send":
            return try listeningStep(type: type, body, context: context, line: entry.line)
        case "forward": return try forward(body, context: context, line: entry.line)
        default:
            guard let promptEntry = body["prompt"] else { return .hangup(prompt: nil) }
            return .hangup(prompt: try prompt(promptEntry, context: context))
        }
    }

    /// `forward`: an optional prompt, then the caller is sent on to `to` (a blind transfer).
    private func forward(_ body: Fields, context: String, line: Int?) throws(BotScriptError) -> BotStep {
        guard let toEntry = body["to"] else { throw failure(.missingKey, line, "\(context) is a forward with no \"to\"") }
        let written = try text(toEntry, context: "the destination of \(context)")
        guard let destination = try? Call.checkedDestination(written) else {
            throw failure(.invalidValue, toEntry.line, "the destination of \(context) must be one word without spaces or control characters")
        }
        return .forward(prompt: try body["prompt"].map { entry throws(BotScriptError) in try prompt(entry, context: context) }, destination: destination)
    }

    private func menu(_ body: Fields, context: String, line: Int?) throws(BotScriptError) -> BotMenu {
        var menu = BotMenu(prompt: try prompt(required: body, context: context, line: line), options: [:])
        if let entry = body["max_digits"] { menu.maxDigits = try integer(entry, context: "max_digits of \(context)", in: 1...32) }
        if let entry = body["terminator"] { menu.terminator = try digit(entry, context: "the terminator of \(context)") }
        if let entry = body["timeout"] { menu.timeout = try duration(entry, context: "the timeout of \(context)", allowZero: true) }
        if let entry = body["retries"] { menu.retries = try integer(entry, context: "retries of \(context)", in: 0...100) }
        if let entry = body["on_timeout"] { menu.onTimeout = try target(entry, context: "on_timeout of \(context)") }
        if let entry = body["on_invalid"] { menu.onInvalid = try target(entry, context: "on_invalid of \(context)") }

        guard let optionsEntry = body["options"] else { throw failure(.emptyMenu, line, "\(context) is a menu with no options") }
        guard case .mapping = optionsEntry.value else {
            if optionsEntry.value.isNull { throw failure(.emptyMenu, optionsEntry.line, "\(context) is a menu with no options") }
            throw failure(.invalidValue, optionsEntry.line, "the options of \(context) must map digits to step names")
        }
        let options = try fields(optionsEntry.value, context: "the options of \(context)").entries
        guard !options.isEmpty else { throw failure(.emptyMenu, optionsEntry.line, "\(context) is a menu with no options") }
        for option in options {
            let keys = option.key
            guard !keys.isEmpty, keys.allSatisfy(Self.digits.contains) else {
                throw failure(.badDigit, option.line, "bad digit \"\(keys)\" in the options of \(context); use 0-9, *, #, A-D")
            }
            guard keys.count <= menu.maxDigits else {
                throw failure(.badDigit, option.line, "option \"\(keys)\" of \(context) has \(keys.count) digits; max_digits is \(menu.maxDigits)")
            }
            if menu.maxDigits > 1, keys.contains(menu.terminator) {
                throw failure(.badDigit, option.line, "option \"\(keys)\" of \(context) contains the terminator \(menu.terminator)")
            }
            menu.options[keys] = try target(option, context: "option \(keys) of \(context)")
        }
        return menu
    }

    private func recording(_ body: Fields, context: String, line: Int?) throws(BotScriptError) -> BotRecording {
        var recording = BotRecording(next: try target(required: "next", body, context: context, line: line))
        if let entry = body["prompt"] { recording.prompt = try prompt(entry, context: context) }
        if let entry = body["path"] { recording.pathTemplate = try pathTemplate(entry, context: context) }
        if let entry = body["max_seconds"] { recording.maxDuration = try duration(entry, context: "max_seconds of \(context)", allowZero: false) }
        if let entry = body["stop_digit"] { recording.stopDigit = try digit(entry, context: "the stop_digit of \(context)") }
        return recording
    }

    private func pathTemplate(_ entry: ScriptEntry, context: String) throws(BotScriptError) -> String {
        let template = try text(entry, context: "the path of \(context)")
        guard template.lowercased().hasSuffix(".wav"), template.count > 4 else {
            throw failure(.invalidValue, entry.line, "the path of \(context) must name a .wav file, found \"\(template)\"")
        }
        var rest = Substring(template)
        while let open = rest.firstIndex(where: { $0 == "{" || $0 == "}" }) {
            guard rest[open] == "{", let close = rest[open...].firstIndex(of: "}") else {
                throw failure(.invalidValue, entry.line, "unbalanced braces in the path of \(context): \"\(template)\"")
            }
            let name = rest[rest.index(after: open)..<close]
            guard RecordingPath.placeholders.contains(String(name)) else {
                throw failure(.invalidValue, entry.line, "unknown placeholder {\(name)} in the path of \(context); use {call}, {time} or {n}")
            }
            rest = rest[rest.index(after: close)...]
        }
        return template
    }

    // MARK: Targets

    func target(required key: String, _ body: Fields, context: String, line: Int?) throws(BotScriptError) -> BotTarget {
        guard let entry = body[key] else { throw failure(.missingKey, line, "\(context) has no \"\(key)\"") }
        return try target(entry, context: "\(key) of \(context)")
    }

    func target(_ entry: ScriptEntry, context: String) throws(BotScriptError) -> BotTarget {
        let name = try text(entry, context: context)
        if name == "hangup" { return .hangup }
        guard stepNames.contains(name) else {
            throw failure(.unknownTarget, entry.value.line ?? entry.line,
                          "\(context) goes to \"\(name)\", which is not a step; use hangup or one of: \(knownSteps)")
        }
        return .step(name)
    }

    // MARK: Prompts

    private func prompt(required body: Fields, context: String, line: Int?) throws(BotScriptError) -> BotPrompt {
        guard let entry = body["prompt"] else { throw failure(.missingKey, line, "\(context) has no \"prompt\"") }
        return try prompt(entry, context: context)
    }

    private func prompt(_ entry: ScriptEntry, context: String) throws(BotScriptError) -> BotPrompt {
        let where_ = "the prompt of \(context)"
        switch entry.value {
        case .sequence(let items):
            guard !items.isEmpty else { throw failure(.invalidPrompt, items.mark?.line ?? entry.line, "\(where_) is an empty list") }
            var parts: [BotPrompt] = []
            for item in items {
                if case .sequence = item { throw failure(.invalidPrompt, item.line ?? entry.line, "\(where_) nests a list in a list") }
                parts.append(try promptPart(item, fallbackLine: entry.line, context: where_))
            }
            return parts.count == 1 ? parts[0] : .sequence(parts)
        default:
            return try promptPart(entry.value, fallbackLine: entry.line, context: where_)
        }
    }

    private func promptPart(_ node: Node, fallbackLine: Int?, context: String) throws(BotScriptError) -> BotPrompt {
        let line = node.line ?? fallbackLine
        switch node {
        case .scalar(let scalar) where !node.isNull:
            return try shortPrompt(scalar.string, line: line, context: context)
        case .mapping:
            let body = try fields(node, context: context)
            try body.rejectUnknown(allowed: ["tone", "seconds", "silence", "wav", "say"] + Self.speechKeys, decoder: self, what: context)
            let kinds = ["tone", "silence", "wav", "say"].filter { body[$0] != nil }
            guard kinds.count == 1 else {
                throw failure(.invalidPrompt, line, "\(context) needs exactly one of tone (with seconds), silence, wav or say")
            }
            if let say = body["say"] {
                guard body["seconds"] == nil else { throw failure(.invalidPrompt, line, "\(context): a say prompt takes no seconds") }
                return .say(try speech(say, voiceFrom: body, context: context))
            }
            if let key = Self.speechKeys.first(where: { body[$0] != nil }) {
                throw failure(.invalidPrompt, body[key]?.line ?? line, "\(context): \(key) goes with say")
            }
            if let wav = body["wav"] {
                guard body["seconds"] == nil else { throw failure(.invalidPrompt, line, "\(context): a wav prompt takes no seconds") }
                return try wavPrompt(try text(wav, context: context), line: wav.line)
            }
            if let silence = body["silence"] {
                guard body["seconds"] == nil else {
                    throw failure(.invalidPrompt, line, "\(context): write silence: SECONDS, without a separate seconds")
                }
                return .silence(seconds: try promptSeconds(silence, context: "the silence of \(context)"))
            }
            let tone = body["tone"]!
            guard let seconds = body["seconds"] else { throw failure(.invalidPrompt, line, "\(context): a tone needs seconds") }
            return .tone(frequency: try frequency(try text(tone, context: context), line: tone.line, context: context),
                         seconds: try promptSeconds(seconds, context: "the seconds of \(context)"))
        default:
            throw failure(.invalidPrompt, line, "\(context) is \(node.kindName); use tone:<Hz>/<seconds>s, silence/<seconds>s, say:<text>, a .wav path or a list of them")
        }
    }

    /// `tone:440/1.5s`, `silence/500ms`, `wav:file`, `file.wav`.
    private func shortPrompt(_ text: String, line: Int?, context: String) throws(BotScriptError) -> BotPrompt {
        if text.hasPrefix("tone:") {
            let body = text.dropFirst(5)
            guard let slash = body.firstIndex(of: "/") else {
                throw failure(.invalidPrompt, line, "\(context): \"\(text)\" has no duration; write tone:<Hz>/<seconds>s, e.g. tone:440/1.5s")
            }
            return .tone(frequency: try frequency(String(body[..<slash]), line: line, context: context),
                         seconds: try shortDuration(body[body.index(after: slash)...], whole: text, line: line, context: context))
        }
        if text.hasPrefix("silence/") {
            return .silence(seconds: try shortDuration(text.dropFirst(8), whole: text, line: line, context: context))
        }
        if text.hasPrefix("wav:"), text.count > 4 { return try wavPrompt(String(text.dropFirst(4)), line: line) }
        if text.hasPrefix("say:") {
            return .say(try checkedSpeech(Speech(String(text.dropFirst(4)).trimmingCharacters(in: .whitespaces)), line: line, context: context))
        }
        if text.lowercased().hasSuffix(".wav") { return try wavPrompt(text, line: line) }
        throw failure(.invalidPrompt, line, "\(context): unknown prompt \"\(text)\"; use tone:<Hz>/<seconds>s, silence/<seconds>s, say:<text> or a .wav path")
    }

    private func shortDuration(_ text: Substring, whole: String, line: Int?, context: String) throws(BotScriptError) -> Double {
        var number = text
        var scale = 1.0
        if number.hasSuffix("ms") {
            number = number.dropLast(2)
            scale = 0.001
        } else if number.hasSuffix("s") {
            number = number.dropLast()
        }
        guard let value = Double(number), value.isFinite else {
            throw failure(.invalidPrompt, line, "\(context): bad duration in \"\(whole)\"; write seconds like 1.5s or 500ms")
        }
        return try checkPromptSeconds(value * scale, line: line, context: context)
    }

    private func promptSeconds(_ entry: ScriptEntry, context: String) throws(BotScriptError) -> Double {
        let raw = try text(entry, context: context)
        guard let value = Double(raw), value.isFinite else {
            throw failure(.invalidPrompt, entry.line, "\(context) must be a number of seconds, found \"\(raw)\"")
        }
        return try checkPromptSeconds(value, line: entry.line, context: context)
    }

    private func checkPromptSeconds(_ value: Double, line: Int?, context: String) throws(BotScriptError) -> Double {
        guard value > 0, value <= Self.longestSeconds else {
            throw failure(.invalidPrompt, line, "\(context): a prompt lasts more than 0 and at most \(Int(Self.longestSeconds)) seconds, found \(value)")
        }
        return value
    }

    private func frequency(_ text: String, line: Int?, context: String) throws(BotScriptError) -> Double {
        guard let hertz = Double(text), (20...20000).contains(hertz) else {
            throw failure(.invalidPrompt, line, "\(context): tone frequency \"\(text)\" must be 20-20000 Hz")
        }
        return hertz
    }

    /// The text of a say step or prompt, with `voice`, `rate` and `pitch` from `body`.
    private func speech(_ textEntry: ScriptEntry, voiceFrom body: Fields, context: String) throws(BotScriptError) -> Speech {
        var speech = Speech(try text(textEntry, context: "the text of \(context)"))
        if let entry = body["voice"] { speech.voice = try text(entry, context: "the voice of \(context)") }
        if let entry = body["rate"] { speech.rate = try integer(entry, context: "the rate of \(context) (words a minute)", in: Speech.rates) }
        if let entry = body["pitch"] { speech.pitch = try integer(entry, context: "the pitch of \(context)", in: Speech.pitches) }
        return try checkedSpeech(speech, line: textEntry.line, context: context)
    }

    private func checkedSpeech(_ speech: Speech, line: Int?, context: String) throws(BotScriptError) -> Speech {
        guard !speech.text.isEmpty, speech.text.count <= Speech.maximumLength else {
            throw failure(.invalidPrompt, line, "\(context): the text to say must be 1 to \(Speech.maximumLength) characters")
        }
        if let problem = Speech.problems(in: speech.text) { throw failure(.invalidPrompt, line, "\(context): \(problem)") }
        do {
            try SpeechSynthesizer.shared.checkVoice(speech.voice)
        } catch {
            throw failure(.invalidPrompt, line, "\(context): \(error.description)")
        }
        return speech
    }

    func wavPrompt(_ path: String, line: Int?) throws(BotScriptError) -> BotPrompt {
        let resolved = path.hasPrefix("/") ? path : URL(fileURLWithPath: baseDirectory).appendingPathComponent(path).standardizedFileURL.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: resolved, isDirectory: &isDirectory), !isDirectory.boolValue,
              FileManager.default.isReadableFile(atPath: resolved) else {
            throw failure(.missingFile, line, "prompt file \"\(path)\" does not exist or is not readable (looked for \(resolved))")
        }
        do {
            _ = try WAVFileSource(path: resolved, sampleRate: 8000)
        } catch {
            throw failure(.invalidPrompt, line, "prompt file \"\(path)\": \(error)")
        }
        return .wav(path: resolved)
    }

    // MARK: Scalars

    func fields(_ node: Node, context: String) throws(BotScriptError) -> Fields {
        guard case .mapping(let mapping) = node else {
            throw failure(.invalidValue, node.line, "\(context) must be a mapping of keys to values, found \(node.kindName)")
        }
        var entries: [ScriptEntry] = []
        for (key, value) in mapping {
            guard case .scalar(let scalar) = key, !key.isNull else {
                throw failure(.invalidValue, key.line, "a key in \(context) is \(key.kindName); keys are single values")
            }
            // Yams tells "1" from 1 when it checks for repeats; here both name the same key.
            if entries.contains(where: { $0.key == scalar.string }) {
                throw failure(.duplicateKey, key.line, "the key \"\(scalar.string)\" appears more than once in one mapping")
            }
            entries.append(ScriptEntry(key: scalar.string, line: key.line, value: value))
        }
        return Fields(entries: entries, line: node.line)
    }

    func text(_ entry: ScriptEntry, context: String) throws(BotScriptError) -> String {
        guard case .scalar(let scalar) = entry.value, !entry.value.isNull else {
            throw failure(.invalidValue, entry.value.line ?? entry.line, "\(context) must be a single value, found \(entry.value.kindName)")
        }
        return scalar.string
    }

    func integer(_ entry: ScriptEntry, context: String, in range: ClosedRange<Int>) throws(BotScriptError) -> Int {
        let raw = try text(entry, context: context)
        guard let value = Int(raw), range.contains(value) else {
            throw failure(.invalidValue, entry.line, "\(context) must be a whole number from \(range.lowerBound) to \(range.upperBound), found \"\(raw)\"")
        }
        return value
    }

    func duration(_ entry: ScriptEntry, context: String, allowZero: Bool) throws(BotScriptError) -> Duration {
        let raw = try text(entry, context: context)
        guard let seconds = Double(raw), seconds.isFinite else {
            throw failure(.invalidValue, entry.line, "\(context) must be a number of seconds, found \"\(raw)\"")
        }
        guard seconds >= 0 else { throw failure(.negativeTimeout, entry.line, "\(context) is negative (\(raw)); use 0 or more seconds") }
        guard seconds <= Self.longestSeconds, allowZero || seconds > 0 else {
            throw failure(.invalidValue, entry.line, "\(context) must be \(allowZero ? "0" : "more than 0") to \(Int(Self.longestSeconds)) seconds, found \(raw)")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    private func flag(_ entry: ScriptEntry, context: String) throws(BotScriptError) -> Bool {
        let raw = try text(entry, context: context)
        switch raw {
        case "true": return true
        case "false": return false
        default: throw failure(.invalidValue, entry.line, "\(context) must be true or false, found \"\(raw)\"")
        }
    }

    private func digit(_ entry: ScriptEntry, context: String) throws(BotScriptError) -> Character {
        let raw = try text(entry, context: context)
        guard raw.count == 1, let digit = raw.first, Self.digits.contains(digit) else {
            throw failure(.badDigit, entry.line, "bad digit \"\(raw)\" for \(context); use one of 0-9, *, #, A-D (quote # and *)")
        }
        return digit
    }
}

/// A mapping's entries with lookup by key.
struct Fields {
    let entries: [ScriptEntry]
    let line: Int?

    subscript(key: String) -> ScriptEntry? { entries.first { $0.key == key } }

    func rejectUnknown(allowed: [String], decoder: BotScriptDecoder, what: String = "the script") throws(BotScriptError) {
        for entry in entries where !allowed.contains(entry.key) {
            throw BotScriptError(.unknownKey, file: decoder.file, line: entry.line,
                                 "unknown key \"\(entry.key)\" in \(what); expected one of: \(allowed.joined(separator: ", "))")
        }
    }
}
