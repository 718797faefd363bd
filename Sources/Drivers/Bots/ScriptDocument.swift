import Yams
import Parley

/// One key of a script mapping, with the line it sits on, and its value.
struct ScriptEntry {
    let key: String
    let line: Int?
    let value: Node
}

/// Reads script text into a Yams node tree (JSON is YAML, so one reader serves both formats).
/// A syntax error keeps libyaml's problem and the line it names.
enum ScriptDocument {
    static func read(_ text: String, format: BotScriptFormat, file: String) throws(BotScriptError) -> Node? {
        // Editors on Windows save a byte order mark, which libyaml reads as content.
        let text = text.unicodeScalars.first == "\u{FEFF}" ? String(text.unicodeScalars.dropFirst()) : text
        try checkShape(text, file: file)
        do {
            return try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw syntaxError(error, text: text, format: format, file: file)
        } catch {
            throw BotScriptError(.syntax, file: file, line: nil, "not valid \(format.name): \(error)")
        }
    }

    /// Deeper than any script needs, and small enough for Yams' recursive composer.
    static let maximumDepth = 32
    /// Far above any real script, and a bound on the tree the decoder walks, aliases included.
    static let maximumNodes = 100_000

    /// Refuses, before Yams builds a tree, what would make building it slow (docs/bots.md, YAML and JSON).
    private static func checkShape(_ text: String, file: String) throws(BotScriptError) {
        do {
            try YAMLShape.check(text, maximumDepth: maximumDepth, maximumNodes: maximumNodes)
        } catch {
            let kind: BotScriptError.Kind = if case .complexKey = error { .complexKey } else { .tooLarge }
            throw BotScriptError(kind, file: file, line: error.line, error.message)
        }
    }

    private static func syntaxError(_ error: YamlError, text: String, format: BotScriptFormat, file: String) -> BotScriptError {
        let lead = "not valid \(format.name)"
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
             .composer(let context, let problem, let mark, _):
            // At the end of the text libyaml counts one line past the last. It reports where it gave
            // up; the note names where the construct it was reading began.
            let lastLine = max(1, text.split(separator: "\n", omittingEmptySubsequences: false).count)
            let line = min(mark.line, lastLine)
            let note = context.map { context in
                let start = min(context.mark.line, lastLine)
                return start == line ? " (\(context.text))" : " (\(context.text) that starts on line \(start))"
            } ?? ""
            return BotScriptError(.syntax, file: file, line: line, "\(lead): \(problem)\(note)\(hint(problem, text: text, line: line))")
        case .duplicatedKeysInMapping(let duplicates, let context):
            let keys = duplicates.map { "\"\($0)\"" }.joined(separator: ", ")
            return BotScriptError(.duplicateKey, file: file, line: context.mark.line,
                                  "the key \(keys) appears more than once in one mapping")
        case .reader(let problem, _, _, _):
            return BotScriptError(.syntax, file: file, line: nil, "\(lead): \(problem)")
        default:
            return BotScriptError(.syntax, file: file, line: nil, "\(lead): \(error)")
        }
    }

    /// The usual causes of libyaml's terser problems, told in the script's terms.
    private static func hint(_ problem: String, text: String, line: Int) -> String {
        let source = text.split(separator: "\n", omittingEmptySubsequences: false)
        let content = line >= 1 && line <= source.count ? source[line - 1] : ""
        if content.prefix(while: { $0 == " " || $0 == "\t" }).contains("\t") {
            return "; a tab in the indentation: indent with spaces"
        }
        if problem.contains("alias") || problem.contains("anchor") {
            return "; quote a value that starts with * or &"
        }
        if problem.contains("expected key") || problem.contains("mapping values are not allowed") {
            return "; check the indentation: each key lines up with the keys beside it, and a value holding \": \" is quoted"
        }
        return ""
    }
}

extension BotScriptFormat {
    var name: String {
        switch self {
        case .yaml: "YAML"
        case .json: "JSON"
        }
    }
}

extension Node {
    /// A plain `~`, `null` or nothing at all: a key with no value.
    var isNull: Bool { null != nil }

    var kindName: String {
        switch self {
        case .scalar: isNull ? "nothing" : "a scalar"
        case .mapping: "a mapping"
        case .sequence: "a list"
        case .alias: "an alias"
        }
    }
}
