import Foundation
import Drivers
import Parley
import Testing

/// What the script reader refuses before Yams builds a tree, because building it would be slow:
/// keys that are lists, mappings or aliases, deep nesting, and aliases that multiply the tree.
@Suite struct BotScriptShapeTests {
    private func error(_ text: String, format: BotScriptFormat = .yaml) -> BotScriptError? {
        do {
            _ = try BotScript.parse(text: text, format: format, baseDirectory: "/tmp", fileName: "bot.yaml")
            return nil
        } catch {
            return error
        }
    }

    private func expectError(_ text: String, _ kind: BotScriptError.Kind, line: Int, containing part: String,
                             format: BotScriptFormat = .yaml, sourceLocation: SourceLocation = #_sourceLocation) {
        let found = error(text, format: format)
        #expect(found?.kind == kind, "\(String(describing: found))", sourceLocation: sourceLocation)
        #expect(found?.line == line, "\(String(describing: found))", sourceLocation: sourceLocation)
        #expect(found?.message.contains(part) == true, "\(String(describing: found))", sourceLocation: sourceLocation)
    }

    @Test func theFuzzersNestedComplexKeysAreRefusedAtOnce() throws {
        // BotScriptFuzz's input: the first byte picks the format (even: YAML), the rest is the text,
        // read as the fuzz target reads it. Yams' duplicate-key check ran for minutes on it.
        let url = BotFiles.packageRoot.appendingPathComponent("fixtures/fuzz/BotScriptFuzz/timeout-nested-complex-keys")
        let bytes = try Data(contentsOf: url)
        #expect(bytes.first.map { $0 % 2 } == 0)
        let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
        let clock = ContinuousClock()
        let start = clock.now
        let found = error(text)
        let elapsed = clock.now - start
        // A hang guard, not a speed goal: before the fix this took minutes.
        #expect(elapsed < .seconds(2))
        #expect(found?.kind == .complexKey)
        #expect(found?.line == 2)
    }

    @Test func keysThatAreNotPlainTextAreRefusedWithTheirLine() {
        let message = "keys are plain text"
        expectError("start: a\nsteps:\n  ? - a\n  : {type: hangup}\n", .complexKey, line: 3, containing: message)
        expectError("start: a\nsteps:\n  a:\n    type: menu\n    options:\n      [1, 2]: a\n", .complexKey, line: 6, containing: message)
        expectError("start: a\nsteps:\n  a: {type: hangup}\n  {x: 1}: b\n", .complexKey, line: 4, containing: message)
        expectError("start: &s a\nsteps:\n  *s : {type: hangup}\n", .complexKey, line: 3, containing: message)
        expectError("{\n  \"start\": \"a\",\n  \"steps\": {[\"a\"]: {\"type\": \"hangup\"}}\n}\n", .complexKey, line: 3,
                    containing: message, format: .json)
    }

    @Test func nestingDeeperThanTheLimitIsRefusedWithItsLine() {
        let deep = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
        expectError("start: a\nsteps:\n  a:\n    type: hangup\n    prompt: \(deep)\n", .tooLarge, line: 5,
                    containing: "nested more than 32 deep")
    }

    @Test func aliasesThatMultiplyTheTreeAreRefused() {
        // Each level lists the one before ten times: eight levels stand for 10^8 values.
        var lines = ["start: a", "l0: &l0 [x, x, x, x, x, x, x, x, x, x]"]
        for level in 1...8 {
            let previous = Array(repeating: "*l\(level - 1)", count: 10).joined(separator: ", ")
            lines.append("l\(level): &l\(level) [\(previous)]")
        }
        lines += ["steps:", "  a: {type: hangup}"]
        let found = error(lines.joined(separator: "\n") + "\n")
        #expect(found?.kind == .tooLarge)
        #expect(found?.line == 6)
        #expect(found?.message.contains("more than 100000 values") == true)
    }

    @Test func blockScalarsAnchorsAndQuotedMarksStillRead() throws {
        // `?` and `-` inside text are not keys or lists; an alias standing for a value is fine.
        let script = try BotScript.parse(text: #"""
        description: |
          ? - not a key
          - : not a list either
        start: a
        steps:
          a:
            type: say
            text: "? - quoted"
            next: b
          b:
            type: hangup
            prompt: &beep tone:440/0.1s
          c:
            type: hangup
            prompt: *beep
        """#, format: .yaml, baseDirectory: "/tmp", fileName: "bot.yaml")
        #expect(script.steps.count == 3)
    }

    @Test func everyExampleScriptStillLoads() throws {
        let folders = [BotFiles.examples, BotFiles.packageRoot.appendingPathComponent("bench/bots")]
        var loaded = 0
        for folder in folders {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where !name.hasPrefix(".") {
                _ = try BotScript.load(path: folder.appendingPathComponent(name).path)
                loaded += 1
            }
        }
        #expect(loaded >= 7)
    }
}
