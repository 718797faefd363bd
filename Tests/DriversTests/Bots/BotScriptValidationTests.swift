import Foundation
import Drivers
import Parley
import Testing

@Suite struct BotScriptValidationTests {
    /// The error `text` gives, or nil when it parses.
    private func error(_ text: String, format: BotScriptFormat = .yaml, baseDirectory: String = "/tmp") -> BotScriptError? {
        do {
            _ = try BotScript.parse(text: text, format: format, baseDirectory: baseDirectory, fileName: "bot.yaml")
            return nil
        } catch {
            return error
        }
    }

    private func expectError(_ text: String, _ kind: BotScriptError.Kind, line: Int?, containing fragment: String,
                             sourceLocation: SourceLocation = #_sourceLocation) {
        let found = error(text)
        #expect(found?.kind == kind, "\(found?.description ?? "no error")", sourceLocation: sourceLocation)
        #expect(found?.line == line, "\(found?.description ?? "no error")", sourceLocation: sourceLocation)
        #expect(found?.message.contains(fragment) == true, "\(found?.description ?? "no error")", sourceLocation: sourceLocation)
        #expect(found?.file == "bot.yaml", sourceLocation: sourceLocation)
    }

    /// A valid one-menu script with `extra` added to the menu step and `steps` appended.
    private func menu(_ extra: String = "", options: String = "      1: bye\n") -> String {
        """
        start: m
        steps:
          m:
            type: menu
            prompt: tone:440/1s
            options:
        \(options)\(extra)
          bye:
            type: hangup

        """
    }

    @Test func theBaseScriptIsValid() {
        #expect(error(menu()) == nil)
    }

    @Test func unknownKeysNameTheKeyTheLineAndWhatIsAllowed() {
        expectError(menu("    optoins: 2\n"), .unknownKey, line: 8, containing: "unknown key \"optoins\" in step \"m\" (a menu); expected one of: type, prompt, options")
        expectError("start: a\nsteps:\n  a:\n    type: hangup\nextra: 1\n", .unknownKey, line: 5, containing: "\"extra\" in the script")
        expectError("start: a\nsteps:\n  a:\n    type: hangup\n    prompt:\n      tone: 440\n      secs: 1\n", .unknownKey, line: 7, containing: "\"secs\"")
    }

    @Test func unknownTargetsAreErrors() {
        expectError(menu(options: "      1: nowhere\n"), .unknownTarget, line: 7,
                    containing: "option 1 of step \"m\" goes to \"nowhere\", which is not a step; use hangup or one of: bye, m")
        expectError(menu("    on_timeout: later\n"), .unknownTarget, line: 8, containing: "on_timeout of step \"m\" goes to \"later\"")
        expectError("start: missing\nsteps:\n  a:\n    type: hangup\n", .unknownTarget, line: 1, containing: "start names \"missing\"")
        expectError("start: a\nsteps:\n  a:\n    type: play\n    prompt: silence/1s\n    next: b\n", .unknownTarget, line: 6, containing: "next of step \"a\" goes to \"b\"")
    }

    @Test func menusNeedOptions() {
        expectError(menu(options: ""), .emptyMenu, line: 6, containing: "step \"m\" is a menu with no options")
        expectError("start: m\nsteps:\n  m:\n    type: menu\n    prompt: tone:440/1s\n", .emptyMenu, line: 3, containing: "no options")
        let json = #"{"start": "m", "steps": {"m": {"type": "menu", "prompt": "tone:440/1s", "options": {}}}}"#
        #expect(error(json, format: .json)?.kind == .emptyMenu)
    }

    @Test func badDigitsAreErrors() {
        expectError(menu(options: "      E: bye\n"), .badDigit, line: 7, containing: "bad digit \"E\" in the options of step \"m\"; use 0-9, *, #, A-D")
        expectError(menu(options: "      a: bye\n"), .badDigit, line: 7, containing: "bad digit \"a\"")
        expectError(menu(options: "      12: bye\n"), .badDigit, line: 7, containing: "has 2 digits; max_digits is 1")
        expectError(menu("    max_digits: 3\n", options: "      1#: bye\n"), .badDigit, line: 7, containing: "contains the terminator")
        expectError("start: r\nsteps:\n  r:\n    type: record\n    stop_digit: x\n    next: hangup\n", .badDigit, line: 5, containing: "bad digit \"x\" for the stop_digit")
    }

    @Test func negativeTimeoutsAreErrors() {
        expectError(menu("    timeout: -1\n"), .negativeTimeout, line: 8, containing: "the timeout of step \"m\" is negative (-1)")
        expectError("start: r\nsteps:\n  r:\n    type: record\n    max_seconds: -5\n    next: hangup\n", .negativeTimeout, line: 5, containing: "negative")
        expectError("start: r\nsteps:\n  r:\n    type: record\n    max_seconds: 0\n    next: hangup\n", .invalidValue, line: 5, containing: "more than 0")
        expectError(menu("    timeout: soon\n"), .invalidValue, line: 8, containing: "must be a number of seconds")
        expectError(menu("    retries: 1.5\n"), .invalidValue, line: 8, containing: "whole number from 0 to 100")
    }

    @Test func missingWAVFilesAreErrors() throws {
        let directory = try BotFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let found = error("start: a\nsteps:\n  a:\n    type: hangup\n    prompt: gone.wav\n", baseDirectory: directory.path)
        #expect(found?.kind == .missingFile)
        #expect(found?.line == 5)
        #expect(found?.message.contains("prompt file \"gone.wav\" does not exist or is not readable (looked for \(directory.path)/gone.wav)") == true)

        let notWAV = directory.appendingPathComponent("text.wav")
        try "not audio".write(to: notWAV, atomically: true, encoding: .utf8)
        let invalid = error("start: a\nsteps:\n  a:\n    type: hangup\n    prompt: text.wav\n", baseDirectory: directory.path)
        #expect(invalid?.kind == .invalidPrompt)
        #expect(invalid?.message.contains("is not a WAV file") == true)
    }

    @Test func badPromptsAreErrors() {
        expectError("start: a\nsteps:\n  a:\n    type: hangup\n    prompt: beep\n", .invalidPrompt, line: 5, containing: "unknown prompt \"beep\"")
        expectError("start: a\nsteps:\n  a:\n    type: hangup\n    prompt: tone:440\n", .invalidPrompt, line: 5, containing: "has no duration")
        expectError("start: a\nsteps:\n  a:\n    type: hangup\n    prompt: tone:5/1s\n", .invalidPrompt, line: 5, containing: "20-20000 Hz")
        expectError("start: a\nsteps:\n  a:\n    type: hangup\n    prompt: silence/0s\n", .invalidPrompt, line: 5, containing: "more than 0")
        expectError("start: a\nsteps:\n  a:\n    type: hangup\n    prompt:\n      tone: 440\n", .invalidPrompt, line: 6, containing: "a tone needs seconds")
        expectError("start: a\nsteps:\n  a:\n    type: hangup\n    prompt:\n      tone: 440\n      wav: x.wav\n", .invalidPrompt, line: 6, containing: "exactly one of")
        expectError("start: a\nsteps:\n  a:\n    type: play\n    next: hangup\n", .missingKey, line: 3, containing: "step \"a\" has no \"prompt\"")
    }

    @Test func structuralMistakesAreErrors() {
        expectError("start: a\nsteps:\n  a:\n    prompt: silence/1s\n", .missingKey, line: 3, containing: "has no \"type\"")
        expectError("start: a\nsteps:\n  a:\n    type: dance\n", .invalidValue, line: 4, containing: "has type \"dance\"; use one of: menu, play, say, record, hangup")
        expectError("start: hangup\nsteps:\n  hangup:\n    type: hangup\n", .invalidValue, line: 3, containing: "reserved")
        expectError("steps:\n  a:\n    type: hangup\n", .missingKey, line: 1, containing: "no \"start\"")
        expectError("start: a\n", .missingKey, line: 1, containing: "no \"steps\"")
        expectError("- a\n- b\n", .invalidValue, line: 1, containing: "must be a mapping")
        expectError("start: a\nsteps:\n  a:\n    type: record\n    path: out.txt\n    next: hangup\n", .invalidValue, line: 5, containing: "must name a .wav file")
        expectError("start: a\nsteps:\n  a:\n    type: record\n    path: \"{date}.wav\"\n    next: hangup\n", .invalidValue, line: 5, containing: "unknown placeholder {date}")
        expectError("start: a\nsteps:\n  a:\n    type: hangup\nmax_steps: 0\n", .invalidValue, line: 5, containing: "max_steps")
    }

    @Test func syntaxErrorsCarryTheFileAndLine() {
        let found = error("start: a\nsteps:\n  a:\n      type: hangup\n    prompt: silence/1s\n")
        #expect(found?.kind == .syntax)
        #expect(found?.description.hasPrefix("bot.yaml:5: not valid YAML: did not find expected key") == true, "\(found?.description ?? "no error")")
        #expect(found?.message.contains("check the indentation") == true)
        let json = error("{\"start\": ", format: .json)
        #expect(json?.kind == .syntax)
        #expect(json?.line == 1)
        #expect(json?.description.hasPrefix("bot.yaml:1: not valid JSON") == true, "\(json?.description ?? "no error")")
    }

    @Test func jsonErrorsNameTheFileAndLine() {
        let json = """
        {"start": "m",
         "steps": {"m": {"type": "menu", "prompt": "tone:440/1s",
                         "options": {"1": "nowhere"}}}}
        """
        let found = error(json, format: .json)
        #expect(found?.kind == .unknownTarget)
        #expect(found?.line == 3)
        #expect(found?.description.hasPrefix("bot.yaml:3: option 1 of step \"m\" goes to \"nowhere\"") == true, "\(found?.description ?? "no error")")
    }

    @Test func jsonBooleansAreNotTakenForNumbers() {
        let json = #"{"start": "m", "steps": {"m": {"type": "menu", "prompt": "tone:440/1s", "options": {"1": "hangup"}, "retries": true}}}"#
        let found = error(json, format: .json)
        #expect(found?.kind == .invalidValue)
        #expect(found?.message.contains("found \"true\"") == true, "\(found?.description ?? "no error")")
        let numbers = #"{"start": "m", "steps": {"m": {"type": "menu", "prompt": "tone:440/1s", "options": {"1": "hangup"}, "retries": 1, "timeout": 0}}}"#
        #expect(error(numbers, format: .json) == nil)
    }

    @Test func loadRejectsUnknownExtensionsAndMissingFiles() throws {
        #expect(throws: BotScriptError.self) { try BotScript.load(path: "/tmp/bot.txt") }
        do {
            _ = try BotScript.load(path: "/nonexistent/bot.yaml")
            Issue.record("a missing script loaded")
        } catch {
            #expect(error.kind == .unreadable)
            #expect(error.description == "/nonexistent/bot.yaml: cannot read the script: no such file, or not readable")
        }
        do {
            _ = try BotScript.load(path: "/tmp/bot.txt")
        } catch {
            #expect(error.message == "unsupported script type \".txt\"; use .yaml, .yml or .json")
        }
    }
}
