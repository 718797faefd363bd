import Foundation
import Drivers
import Parley
import Testing

@Suite struct BotScriptParsingTests {
    @Test(arguments: ["ivr.yaml", "ivr.json", "echo-prompt.yaml", "spoken.yaml"])
    func everyExampleLoads(name: String) throws {
        let script = try BotScript.load(path: BotFiles.examples.appendingPathComponent(name).path)
        #expect(script.steps[script.start] != nil)
        #expect(script.description?.isEmpty == false)
    }

    @Test func theYAMLAndJSONExamplesDescribeTheSameBot() throws {
        let yaml = try BotScript.load(path: BotFiles.examples.appendingPathComponent("ivr.yaml").path)
        let json = try BotScript.load(path: BotFiles.examples.appendingPathComponent("ivr.json").path)
        #expect(yaml.start == json.start)
        #expect(yaml.steps == json.steps)
        #expect(yaml.maxSteps == json.maxSteps)
    }

    @Test func theIVRExampleHasTheDocumentedMenu() throws {
        let script = try BotScript.load(path: BotFiles.examples.appendingPathComponent("ivr.yaml").path)
        #expect(script.start == "welcome")
        guard case .menu(let menu) = script.steps["welcome"] else {
            Issue.record("welcome is not a menu")
            return
        }
        #expect(menu.prompt == .tone(frequency: 440, seconds: 1.5))
        #expect(menu.options == ["1": .step("sales"), "2": .step("message"), "9": .hangup])
        #expect(menu.timeout == .seconds(5))
        #expect(menu.retries == 2)
        #expect(menu.onTimeout == .step("goodbye"))
        #expect(script.steps["sales"] == .play(prompt: .tone(frequency: 660, seconds: 1), next: .step("welcome")))
        guard case .record(let record) = script.steps["message"] else {
            Issue.record("message is not a record step")
            return
        }
        #expect(record.prompt == .sequence([.tone(frequency: 550, seconds: 1), .silence(seconds: 0.2), .tone(frequency: 1000, seconds: 0.2)]))
        #expect(record.pathTemplate == "message-{call}-{n}.wav")
        #expect(record.maxDuration == .seconds(30))
        #expect(record.stopDigit == "#")
        #expect(script.steps["goodbye"] == .hangup(prompt: .tone(frequency: 330, seconds: 0.5)))
    }

    @Test func everyExamplePromptHasItsOwnFrequency() throws {
        let script = try BotScript.load(path: BotFiles.examples.appendingPathComponent("ivr.yaml").path)
        var frequencies: [Double] = []
        func collect(_ prompt: BotPrompt?) {
            switch prompt {
            case .tone(let frequency, _): frequencies.append(frequency)
            case .sequence(let parts): parts.forEach(collect)
            default: break
            }
        }
        for step in script.steps.values {
            switch step {
            case .menu(let menu): collect(menu.prompt)
            case .play(let prompt, _): collect(prompt)
            case .record(let record): collect(record.prompt)
            case .hangup(let prompt): collect(prompt)
            case .wait, .expect, .send: break
            case .forward(let prompt, _): collect(prompt)
            }
        }
        #expect(frequencies.count == 6)
        #expect(Set(frequencies).count == frequencies.count)
    }

    @Test func theEchoPromptExampleLoopsWithARaisedStepCap() throws {
        let script = try BotScript.load(path: BotFiles.examples.appendingPathComponent("echo-prompt.yaml").path)
        #expect(script.maxSteps == 100_000)
        #expect(script.steps["loop"] == .play(prompt: .sequence([.tone(frequency: 600, seconds: 1), .silence(seconds: 0.2)]), next: .step("loop")))
    }

    @Test func promptFormsShortLongAndListsAreEquivalent() throws {
        let script = try BotScript.parse(text: """
        start: a
        steps:
          a:
            type: play
            prompt: tone:440/250ms
            next: b
          b:
            type: play
            prompt:
              tone: 440
              seconds: 0.25
            next: c
          c:
            type: play
            prompt:
              - silence/1s
              - silence: 1
            next: hangup
        """, format: .yaml, baseDirectory: "/tmp")
        #expect(script.steps["a"] == .play(prompt: .tone(frequency: 440, seconds: 0.25), next: .step("b")))
        #expect(script.steps["b"] == .play(prompt: .tone(frequency: 440, seconds: 0.25), next: .step("c")))
        #expect(script.steps["c"] == .play(prompt: .sequence([.silence(seconds: 1), .silence(seconds: 1)]), next: .hangup))
    }

    @Test func defaultsApplyWhenKeysAreLeftOut() throws {
        let script = try BotScript.parse(text: """
        start: m
        steps:
          m:
            type: menu
            prompt: tone:440/1s
            options:
              "#": r
          r:
            type: record
            next: bye
          bye:
            type: hangup
        """, format: .yaml, baseDirectory: "/tmp")
        #expect(script.maxSteps == 1000)
        #expect(script.steps["m"] == .menu(BotMenu(prompt: .tone(frequency: 440, seconds: 1), options: ["#": .step("r")])))
        #expect(script.steps["r"] == .record(BotRecording(next: .step("bye"))))
        #expect(script.steps["bye"] == .hangup(prompt: nil))
    }

    @Test func relativeWAVPathsResolveAgainstTheScriptDirectory() throws {
        let directory = try BotFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("audio"), withIntermediateDirectories: true)
        try BotFiles.writeWAV(at: directory.appendingPathComponent("audio/hello.wav").path, samples: 400)
        let scriptPath = directory.appendingPathComponent("bot.yml").path
        try """
        start: hi
        steps:
          hi:
            type: hangup
            prompt:
              - audio/hello.wav
              - wav: ./audio/../audio/hello.wav
        """.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        let script = try BotScript.load(path: scriptPath)
        let expected = directory.appendingPathComponent("audio/hello.wav").standardizedFileURL.path
        #expect(script.steps["hi"] == .hangup(prompt: .sequence([.wav(path: expected), .wav(path: expected)])))
    }
}

@Suite struct BotForwardStepTests {
    @Test func aForwardStepReadsItsDestinationAndOptionalPrompt() throws {
        let script = try BotScript.parse(text: """
            start: op
            steps:
              op:
                type: forward
                prompt: tone:700/300ms
                to: carol
            """, format: .yaml, baseDirectory: ".")
        let step = try #require(script.steps["op"])
        let forward: (prompt: BotPrompt?, destination: String)? = if case .forward(let prompt, let destination) = step { (prompt, destination) } else { nil }
        #expect(forward?.destination == "carol")
        #expect(forward?.prompt != nil)
    }

    @Test func aForwardStepWithoutADestinationOrWithSpacesIsRefusedWithItsLine() {
        for body in ["    type: forward", "    type: forward\n    to: two words"] {
            #expect(throws: BotScriptError.self) {
                try BotScript.parse(text: "start: op\nsteps:\n  op:\n\(body)\n", format: .yaml, baseDirectory: ".")
            }
        }
    }
}
