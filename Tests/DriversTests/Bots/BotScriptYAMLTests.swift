import Drivers
import Parley
import Testing

/// How YAML text reaches the decoder: what Yams reads, and how its errors keep their lines.
@Suite struct BotScriptYAMLTests {
    private func parse(_ text: String) throws(BotScriptError) -> BotScript {
        try BotScript.parse(text: text, format: .yaml, baseDirectory: "/tmp", fileName: "bot.yaml")
    }

    private func error(_ text: String) -> BotScriptError? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func quotedDigitsCommentsAndBothListStylesRead() throws {
        let script = try parse(#"""
        ---
        # a comment line
        start: m
        steps:
          m:
            type: menu     # trailing comment
            prompt:
            - tone:440/0.5s
            -   silence: 0.25
            max_digits: 2
            terminator: "*"
            options:
              "#": bye
              '1': bye
              2#: bye
          bye:
            type: hangup
            prompt: ["silence/100ms", {tone: 880, seconds: 0.1}]
        """#)
        guard case .menu(let menu) = try #require(script.steps["m"]) else {
            Issue.record("m is not a menu")
            return
        }
        #expect(menu.options == ["#": .step("bye"), "1": .step("bye"), "2#": .step("bye")])
        #expect(menu.terminator == "*")
        #expect(menu.prompt == .sequence([.tone(frequency: 440, seconds: 0.5), .silence(seconds: 0.25)]))
        #expect(script.steps["bye"] == .hangup(prompt: .sequence([.silence(seconds: 0.1), .tone(frequency: 880, seconds: 0.1)])))
    }

    @Test func windowsLineEndingsAndAByteOrderMarkAreAccepted() throws {
        let script = try parse("\u{FEFF}start: a\t# tab, then comment\r\nsteps:\r\n  a:\r\n    type: hangup\r\n")
        #expect(script.start == "a")
    }

    @Test(arguments: [
        ("start: a\n  steps: 2\n", 2, "mapping values are not allowed"),
        ("start: a\nsteps:\n  a:\n\ttype: hangup\n", 4, "a tab in the indentation"),
        ("start: a\nsteps:\n  a:\n    prompt: *nothing\n", 4, "undefined alias"),
        ("start: \"open\nsteps: 1\n", 3, "found unexpected end of stream"),
        ("start: a\nstart: b\n", 1, "appears more than once"),
        ("start: a\n'start': b\n", 1, "appears more than once"),
        ("start: m\nsteps:\n  m:\n    type: menu\n    prompt: tone:440/1s\n    options:\n      '1': m\n      1: m\n", 8, "the key \"1\" appears more than once"),
        ("start: a\n---\nstart: b\n", 2, "single document"),
    ])
    func syntaxErrorsNameTheirLine(text: String, line: Int, fragment: String) {
        let found = error(text)
        #expect(found?.line == line, "\(found?.description ?? "no error") for \(text.debugDescription)")
        #expect(found?.message.contains(fragment) == true, "\(found?.description ?? "no error") for \(text.debugDescription)")
    }

    @Test func aRepeatedKeyIsItsOwnKind() {
        #expect(error("start: a\nstart: b\n")?.kind == .duplicateKey)
        #expect(error("start: a\nsteps: [\n")?.kind == .syntax)
    }

    @Test func anEmptyScriptSaysSo() {
        let found = error("# nothing here\n")
        #expect(found?.kind == .invalidValue)
        #expect(found?.description == "bot.yaml: the script must be a mapping of keys to values, found nothing")
    }
}
