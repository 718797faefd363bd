@testable import CLI
import Foundation
import Testing

/// `call --help`, docs/cli.md and docs/audio.md name every key the status line answers, every
/// standard-input command and every exit status of `parley call`, from the code's own tables
/// (issue 30, item 3).
@Suite struct CallControlsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private static func document(_ path: String) throws -> String {
        // Docs wrap lines anywhere: compare with every run of white space as one space.
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    private static var help: String {
        CallCommand.helpMessage(columns: 10_000).split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    @Test func everyKeyIsHandledAndListed() throws {
        let cli = try Self.document("docs/cli.md")
        for key in CallKey.allCases {
            #expect(Self.help.contains("\(key.keys) \(key.help)"), "call --help lacks key \(key.keys)")
            #expect(CallKey.statusText.contains(key.brief))
            let documented = key == .digit ? "`0`-`9` `*` `#`" : "`\(key.keys)`"
            #expect(cli.contains(documented), "docs/cli.md lacks key \(documented)")
            if key != .digit {
                #expect(CallKey(Character(key.keys)) == key)
                #expect(CallKey(Character(key.keys.uppercased())) == key)
            }
        }
        for digit in "0123456789*#ABD" { #expect(CallKey(digit) == .digit) }
        #expect(CallKey("x") == nil)
    }

    @Test func everyStandardInputCommandIsParsedAndListed() throws {
        let cli = try Self.document("docs/cli.md")
        for command in StandardInputCommand.allCases {
            #expect(Self.help.contains(command.usage), "call --help lacks \(command.usage)")
            #expect(cli.contains("`\(command.usage)`"), "docs/cli.md lacks `\(command.usage)`")
            let line = command.takesArgument ? command.rawValue + " 12" : command.rawValue.uppercased()
            #expect(StandardInputCommand.parse(line)?.command == command)
        }
        #expect(StandardInputCommand.parse("dtmf") == nil, "dtmf needs its digits")
        #expect(StandardInputCommand.parse("dance") == nil)
        #expect(StandardInputCommand.choices.hasPrefix("dtmf DIGITS, hold, ") && StandardInputCommand.choices.hasSuffix(", ice-restart or hangup"))
    }

    @Test func everyExitStatusIsListed() throws {
        let cli = try Self.document("docs/cli.md")
        let section = try #require(cli.range(of: "Exit status: `0` the call ended normally").map { String(cli[$0.lowerBound...].prefix(1500)) })
        for (status, meaning) in ExitStatus.callMeanings {
            #expect(Self.help.contains("\(status) \(meaning)"), "call --help lacks exit status \(status)")
            #expect(section.contains("`\(status)`"), "docs/cli.md's call exit statuses lack \(status)")
        }
        #expect(ExitStatus.callMeanings.map(\.status).contains(ExitStatus.botFailed))
    }

    @Test func audioGuideShowsTheStatusLineAsItIs() throws {
        #expect(try Self.document("docs/audio.md").contains(CallKey.statusText))
    }
}
