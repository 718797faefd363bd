/// The keys a call answers on a terminal and the commands it takes on standard input: one table
/// that `CallSession` switches over, that `call --help` and the status line print, and that
/// Tests/CLITests/CallControlsTests.swift holds docs/cli.md to, so none of them can drift.
enum CallKey: CaseIterable {
    case digit, mute, hold, transfer, merge, unmerge, quit, showKeys

    init?(_ key: Character) {
        // Letters first: `C` merges, as it always did, though C is also a DTMF digit.
        switch key {
        case "m", "M": self = .mute
        case "h", "H": self = .hold
        case "t", "T": self = .transfer
        case "c", "C": self = .merge
        case "u", "U": self = .unmerge
        case "q", "Q": self = .quit
        case "?": self = .showKeys
        case "0"..."9", "*", "#", "A"..."D": self = .digit
        default: return nil
        }
    }

    /// The key as help shows it.
    var keys: String {
        switch self {
        case .digit: "0-9 * #"
        case .mute: "m"
        case .hold: "h"
        case .transfer: "t"
        case .merge: "c"
        case .unmerge: "u"
        case .quit: "q"
        case .showKeys: "?"
        }
    }

    /// What the key does, for `--help`.
    var help: String {
        switch self {
        case .digit: "send DTMF"
        case .mute: "mute/unmute"
        case .hold: "hold/unhold"
        case .transfer: "transfer (type the destination, Enter)"
        case .merge: "call another party and merge it (type it, Enter)"
        case .unmerge: "unmerge"
        case .quit: "hang up"
        case .showKeys: "print these keys again"
        }
    }

    /// The status line's reminder, as short as it can be.
    var brief: String {
        switch self {
        case .digit: "0-9*# dtmf"
        case .mute: "m mute"
        case .hold: "h hold"
        case .transfer: "t transfer"
        case .merge: "c merge"
        case .unmerge: "u unmerge"
        case .quit: "q quit"
        case .showKeys: "? keys"
        }
    }

    static var helpText: String { allCases.map { "\($0.keys) \($0.help)" }.joined(separator: ", ") }
    static var statusText: String { "[" + allCases.map(\.brief).joined(separator: ", ") + "]" }
    /// What the status line keeps of the reminder when the whole of it does not fit.
    static var statusHint: String { "[" + showKeys.brief + "]" }
}

/// A command line on standard input (`dtmf 123`, `hold`, ...).
enum StandardInputCommand: String, CaseIterable {
    case dtmf, hold, unhold, mute, unmute, transfer, merge, unmerge, iceRestart = "ice-restart", hangup

    /// The command as help shows it, with its argument.
    var usage: String {
        switch self {
        case .dtmf: "dtmf DIGITS"
        case .transfer: "transfer DEST"
        case .merge: "merge DEST"
        default: rawValue
        }
    }

    var takesArgument: Bool { usage != rawValue }

    /// The command and its argument from a line; nil for an unknown word or a missing argument.
    static func parse(_ line: String) -> (command: Self, argument: String)? {
        let words = line.split(separator: " ", maxSplits: 1).map(String.init)
        guard let first = words.first, let command = Self(rawValue: first.lowercased()), !command.takesArgument || words.count == 2 else { return nil }
        return (command, words.count == 2 ? words[1] : "")
    }

    static var helpText: String { allCases.map(\.usage).joined(separator: ", ") }

    /// "dtmf DIGITS, hold, ... or hangup", for the error that answers an unknown command.
    static var choices: String {
        allCases.dropLast().map(\.usage).joined(separator: ", ") + " or " + (allCases.last?.usage ?? "")
    }
}
