import Foundation
import Parley

/// Where a step goes next: another step, or the end of the call.
public enum BotTarget: Sendable, Hashable, CustomStringConvertible {
    case step(String)
    /// The reserved word `hangup`: end the call at once, with no prompt.
    case hangup

    public var description: String {
        switch self {
        case .step(let name): name
        case .hangup: "hangup"
        }
    }
}

/// Plays a prompt, then waits for digits and branches on them.
public struct BotMenu: Sendable, Equatable {
    public var prompt: BotPrompt
    /// Digit strings (one digit unless `maxDigits` > 1) to targets.
    public var options: [String: BotTarget]
    /// How long to wait for the first digit after the prompt ends, and between digits.
    public var timeout: Duration
    /// How many more times the prompt plays after a timeout or an invalid entry.
    public var retries: Int
    public var onTimeout: BotTarget
    public var onInvalid: BotTarget
    public var maxDigits: Int
    /// Ends a multi-digit entry early; not part of the entry.
    public var terminator: Character

    public init(prompt: BotPrompt, options: [String: BotTarget], timeout: Duration = .seconds(5), retries: Int = 2,
                onTimeout: BotTarget = .hangup, onInvalid: BotTarget = .hangup, maxDigits: Int = 1, terminator: Character = "#") {
        self.prompt = prompt
        self.options = options
        self.timeout = timeout
        self.retries = retries
        self.onTimeout = onTimeout
        self.onInvalid = onInvalid
        self.maxDigits = maxDigits
        self.terminator = terminator
    }
}

/// Records the caller after an optional prompt.
public struct BotRecording: Sendable, Equatable {
    public static let defaultPathTemplate = "{call}-{time}-{n}.wav"

    public var prompt: BotPrompt?
    /// `{call}` the call id (made safe for a file name), `{time}` the UTC start time
    /// (20261105T101530Z), `{n}` the number of this recording in the call, from 1.
    public var pathTemplate: String
    public var maxDuration: Duration
    public var stopDigit: Character
    public var next: BotTarget

    public init(prompt: BotPrompt? = nil, pathTemplate: String = Self.defaultPathTemplate, maxDuration: Duration = .seconds(60),
                stopDigit: Character = "#", next: BotTarget) {
        self.prompt = prompt
        self.pathTemplate = pathTemplate
        self.maxDuration = maxDuration
        self.stopDigit = stopDigit
        self.next = next
    }
}

public enum BotStep: Sendable, Equatable {
    case menu(BotMenu)
    case play(prompt: BotPrompt, next: BotTarget)
    case record(BotRecording)
    case hangup(prompt: BotPrompt?)
    /// Listening steps (docs/bots.md, "Listening" and "Testing an IVR").
    case wait(BotWait)
    case expect(BotExpectation)
    /// Sends DTMF digits to the far end, then goes on.
    case send(digits: String, next: BotTarget)
    /// Plays the prompt, if any, then sends the caller on to `destination` (docs/bots.md).
    case forward(prompt: BotPrompt?, destination: String)
}

public enum BotScriptFormat: String, Sendable, CaseIterable {
    case yaml
    case json

    /// `.yaml`/`.yml` or `.json`, in any case.
    public init?(path: String) {
        switch (path as NSString).pathExtension.lowercased() {
        case "yaml", "yml": self = .yaml
        case "json": self = .json
        default: return nil
        }
    }
}

/// An IVR bot: named steps and the one to start with. docs/bots.md describes the file format.
public struct BotScript: Sendable, Equatable {
    public static let defaultMaxSteps = 1000
    public static let maximumFileSize = 1 << 20

    public var start: String
    public var steps: [String: BotStep]
    /// How many steps one call may visit before the bot gives up on it (a loop with no way out).
    public var maxSteps: Int
    public var description: String?

    public init(start: String, steps: [String: BotStep], maxSteps: Int = Self.defaultMaxSteps, description: String? = nil) {
        self.start = start
        self.steps = steps
        self.maxSteps = maxSteps
        self.description = description
    }

    /// Reads and validates the script at `path`; its format follows the extension, and relative
    /// WAV paths resolve against its directory.
    public static func load(path: String) throws(BotScriptError) -> BotScript {
        guard let format = BotScriptFormat(path: path) else {
            let found = (path as NSString).pathExtension
            throw BotScriptError(.unreadable, file: path, line: nil,
                                 "unsupported script type \(found.isEmpty ? "(no extension)" : "\".\(found)\""); use .yaml, .yml or .json")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
              let data = FileManager.default.contents(atPath: path) else {
            throw BotScriptError(.unreadable, file: path, line: nil, "cannot read the script: no such file, or not readable")
        }
        guard data.count <= maximumFileSize else {
            throw BotScriptError(.unreadable, file: path, line: nil, "the script is \(data.count) bytes; the limit is \(maximumFileSize)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw BotScriptError(.syntax, file: path, line: nil, "the script is not UTF-8 text")
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return try parse(text: text, format: format, baseDirectory: directory, fileName: path)
    }

    /// Parses and validates script text. `fileName` only labels errors.
    public static func parse(text: String, format: BotScriptFormat, baseDirectory: String,
                             fileName: String = "script") throws(BotScriptError) -> BotScript {
        let root = try ScriptDocument.read(text, format: format, file: fileName)
        var decoder = BotScriptDecoder(file: fileName, baseDirectory: baseDirectory)
        return try decoder.decode(root)
    }
}
