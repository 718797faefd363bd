import Yams
import Parley

/// `heard:`, `prompt:` and `keywords:` on `wait` and `expect` (docs/speech.md).
extension BotScriptDecoder {
    static let hearingKeys = ["heard", "prompt", "keywords"]
    static let maximumAlternatives = 16
    static let longestExpectedText = 500

    /// What the step hears, if it names one of `heard`, `prompt` or `keywords` (nil: it uses `for`).
    func hearing(_ body: Fields, context: String, line: Int?, allowKeywords: Bool) throws(BotScriptError) -> BotHearing? {
        let named = Self.hearingKeys.filter { body[$0] != nil }
        guard !named.isEmpty else {
            for key in ["accuracy", "similarity"] {
                if let extra = body[key] { throw failure(.invalidValue, extra.line, "\(context): \(key) goes with heard or prompt") }
            }
            return nil
        }
        guard named.count == 1 else { throw failure(.invalidValue, line, "\(context) takes one of heard, prompt or keywords, not \(named.joined(separator: " and "))") }
        for key in ["for", "ms", "frequency", "min_ms"] {
            if let extra = body[key] { throw failure(.invalidValue, extra.line, "\(context): \(key) does not go with \(named[0])") }
        }
        if named[0] != "heard", let extra = body["accuracy"] { throw failure(.invalidValue, extra.line, "\(context): accuracy goes with heard") }
        if named[0] != "prompt", let extra = body["similarity"] { throw failure(.invalidValue, extra.line, "\(context): similarity goes with prompt") }
        if named[0] != "prompt" {
            do {
                try SpeechDecoder.checkModel()
            } catch {
                throw failure(.missingFile, body[named[0]]?.line ?? line, "\(context) listens for words: \(error)")
            }
        }
        switch named[0] {
        case "heard":
            let accuracy = try body["accuracy"].map { entry throws(BotScriptError) in try share(entry, context: "accuracy of \(context)") }
            return .words(alternatives: try alternatives(body["heard"]!, context: context), accuracy: accuracy ?? BotHearing.defaultAccuracy)
        case "prompt":
            let entry = body["prompt"]!
            guard case .wav(let path) = try wavPrompt(try text(entry, context: "the prompt of \(context)"), line: entry.line) else {
                throw failure(.invalidPrompt, entry.line, "the prompt of \(context) must be a .wav recording")
            }
            let similarity = try body["similarity"].map { entry throws(BotScriptError) in try share(entry, context: "similarity of \(context)") }
            return .prompt(path: path, similarity: similarity ?? BotHearing.defaultSimilarity)
        default:
            guard allowKeywords else { throw failure(.invalidValue, body["keywords"]!.line, "\(context): keywords go on a wait, which branches on them") }
            return .keywords(try keywords(body["keywords"]!, context: context))
        }
    }

    /// One text or a list of them, each with at least one word.
    private func alternatives(_ entry: ScriptEntry, context: String) throws(BotScriptError) -> [String] {
        let nodes: [Node]
        if case .sequence(let items) = entry.value { nodes = Array(items) } else { nodes = [entry.value] }
        guard (1...Self.maximumAlternatives).contains(nodes.count) else {
            throw failure(.invalidValue, entry.line, "heard of \(context) must be a text or a list of 1 to \(Self.maximumAlternatives) texts")
        }
        var texts: [String] = []
        for node in nodes {
            let text = try text(ScriptEntry(key: "heard", line: node.line ?? entry.line, value: node), context: "heard of \(context)")
            guard text.count <= Self.longestExpectedText, !WordMatch.words(text).isEmpty else {
                throw failure(.invalidValue, node.line ?? entry.line, "heard of \(context) must hold 1 to \(Self.longestExpectedText) characters with at least one word")
            }
            texts.append(text)
        }
        return texts
    }

    private func keywords(_ entry: ScriptEntry, context: String) throws(BotScriptError) -> [BotKeyword] {
        guard case .mapping = entry.value else {
            throw failure(.invalidValue, entry.line, "keywords of \(context) must map what the caller says to step names")
        }
        let entries = try fields(entry.value, context: "keywords of \(context)").entries
        guard (1...Self.maximumAlternatives).contains(entries.count) else {
            throw failure(.invalidValue, entry.line, "keywords of \(context) must hold 1 to \(Self.maximumAlternatives) keywords")
        }
        var keywords: [BotKeyword] = []
        for keyword in entries {
            guard !WordMatch.words(keyword.key).isEmpty, keyword.key.count <= Self.longestExpectedText else {
                throw failure(.invalidValue, keyword.line, "the keyword \"\(keyword.key)\" of \(context) has no word")
            }
            keywords.append(BotKeyword(phrase: keyword.key, target: try target(keyword, context: "keyword \"\(keyword.key)\" of \(context)")))
        }
        return keywords
    }

    /// A share from 0 to 1: `0.7`, or `70%`.
    private func share(_ entry: ScriptEntry, context: String) throws(BotScriptError) -> Double {
        let raw = try text(entry, context: context)
        let value = raw.hasSuffix("%") ? Double(raw.dropLast()).map { $0 / 100 } : Double(raw)
        guard let value, value > 0, value <= 1 else {
            throw failure(.invalidValue, entry.line, "\(context) must be more than 0 and at most 1 (or 1%-100%), found \"\(raw)\"")
        }
        return value
    }
}
