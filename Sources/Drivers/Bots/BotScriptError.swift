import Parley

/// Why a bot script cannot be used, with where in the file (`ivr.yaml:12: ...`).
public struct BotScriptError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, CaseIterable {
        /// The file could not be read, or its extension is not .yaml, .yml or .json.
        case unreadable
        /// Not valid YAML or JSON.
        case syntax
        case unknownKey = "unknown-key"
        case missingKey = "missing-key"
        case duplicateKey = "duplicate-key"
        /// A mapping key that is a list, a mapping or an alias: script keys are plain text.
        case complexKey = "complex-key"
        /// Nested too deep, or too many values (aliases counted as what they stand for).
        case tooLarge = "too-large"
        /// A value of the wrong shape or out of range.
        case invalidValue = "invalid-value"
        case unknownTarget = "unknown-target"
        case emptyMenu = "empty-menu"
        case badDigit = "bad-digit"
        case negativeTimeout = "negative-timeout"
        case missingFile = "missing-file"
        case invalidPrompt = "invalid-prompt"
    }

    public let kind: Kind
    /// The script's path, or the name given to `parse`.
    public let file: String
    /// 1-based; nil when the problem has no place in the text (an unreadable file, an empty script).
    public let line: Int?
    public let message: String

    public init(_ kind: Kind, file: String, line: Int?, _ message: String) {
        self.kind = kind
        self.file = file
        self.line = line
        self.message = message
    }

    /// The code scripts match on, e.g. "unknown-target".
    public var code: String { kind.rawValue }

    public var description: String {
        if let line { "\(file):\(line): \(message)" } else { "\(file): \(message)" }
    }
}
