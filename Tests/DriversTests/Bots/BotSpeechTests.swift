import Foundation
import Media
@testable import Drivers
@testable import Parley
import Testing

/// `say` prompts: espeak-ng speech, synthesised once per process unless it names call variables.
@Suite struct BotSpeechTests {
    private func samples(_ prompt: BotPrompt, sampleRate: Int) throws -> [Int16] {
        drain(try prompt.makeSource(sampleRate: sampleRate), frame: sampleRate / 50).frames.flatMap { $0 }
    }

    private func rms(_ samples: [Int16]) -> Double {
        (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, samples.count))).squareRoot()
    }

    @Test func aSayPromptIsAudibleAndItsLengthScalesWithTheText() throws {
        let short = try samples(.say(Speech("Welcome to the speech test.")), sampleRate: 8000)
        let long = try samples(.say(Speech("Welcome to the speech test. Press one for sales, two for support, three for billing, "
                                               + "or stay on the line and the next free agent will take your call.")), sampleRate: 8000)
        #expect(rms(short) > 500, "speech is not silence")
        #expect(rms(long) > 500)
        #expect(short.count > 8000 / 2, "a sentence lasts more than half a second")
        let ratio = Double(long.count) / Double(short.count)
        #expect(ratio > 3 && ratio < 10, "five times the words: \(ratio) times the length")
        // The same speech at another codec rate lasts as long.
        let wide = try samples(.say(Speech("Welcome to the speech test.")), sampleRate: 48000)
        let wideSeconds = Double(wide.count) / 48000, narrowSeconds = Double(short.count) / 8000
        #expect(abs(wideSeconds - narrowSeconds) < 0.05)
    }

    @Test func rateAndVoiceChangeTheSpeech() throws {
        let text = "The quick brown fox jumps over the lazy dog."
        let normal = try SpeechSynthesizer.shared.audio(Speech(text), sampleRate: 16000)
        let fast = try SpeechSynthesizer.shared.audio(Speech(text, rate: 350), sampleRate: 16000)
        #expect(Double(fast.count) < 0.7 * Double(normal.count), "twice the words a minute is shorter: \(fast.count) against \(normal.count)")
        let british = try SpeechSynthesizer.shared.audio(Speech(text, voice: "en-gb"), sampleRate: 16000)
        #expect(british != normal)
        #expect(throws: AudioError.self) { _ = try SpeechSynthesizer.shared.audio(Speech(text, voice: "xx-nope"), sampleRate: 16000) }
    }

    @Test func aHundredCallsSayingTheSameGreetingCostOneSynthesis() async throws {
        let greeting = Speech("Thank you for calling the cache test line, number \(UUID().uuidString.prefix(4)).")
        let script = """
        start: greet
        steps:
          greet:
            type: say
            text: "\(greeting.text)"
            next: hangup
        """
        let heard = Guarded([Int]())
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: BotOutcome.self) { group in
            for index in 0..<100 {
                let call = FakeBotCall(callID: "call-\(index)") { _, prompt, _ in
                    // What a real call does with the prompt: a source at its codec's rate.
                    let played = (try? prompt.makeSource(sampleRate: index.isMultiple(of: 2) ? 8000 : 48000)).map { drain($0, frame: 160).frames.count } ?? 0
                    heard.withLock { $0.append(played) }
                    return true
                }
                group.addTask { try await runBot(script, on: call, within: 30) }
            }
            for try await outcome in group { #expect(outcome.ending == .botHungUp) }
        }
        let elapsed = ContinuousClock.now - started
        #expect(SpeechSynthesizer.shared.syntheses(of: greeting) == 1)
        let frames = heard.withLock { $0 }
        #expect(frames.count == 100)
        #expect(frames.allSatisfy { $0 > 50 }, "every call heard the greeting: \(frames)")
        print("[say] 100 calls, one greeting: \(SpeechSynthesizer.shared.syntheses(of: greeting)) synthesis, \(elapsed) for all calls")
    }

    @Test func textWithCallVariablesIsSpokenForEachCall() async throws {
        let script = """
        start: menu
        steps:
          menu:
            type: menu
            prompt: silence/10ms
            max_digits: 4
            timeout: 2
            options:
              "1234": confirm
              "98": confirm
          confirm:
            type: say
            text: You entered {digits}.
            next: hangup
        """
        var lengths: [Int] = []
        for entry in ["1234", "98#"] {
            let call = FakeBotCall(onPlay: { index, _, call in
                if index == 0 { call.press(entry) }
                return true
            })
            let outcome = try await runBot(script, on: call)
            #expect(outcome.ending == .botHungUp)
            let spoken = try #require(call.played.last)
            guard case .spoken = spoken else {
                Issue.record("the confirmation was not rendered for the call: \(spoken)")
                return
            }
            #expect(!spoken.description.contains("9") && !spoken.description.contains("1"), "digits stay out of descriptions")
            lengths.append(try samples(spoken, sampleRate: 8000).count)
        }
        #expect(SpeechSynthesizer.shared.syntheses(of: Speech("You entered {digits}.")) >= 2)
        #expect(lengths[0] > lengths[1], "four digits take longer to say than two: \(lengths)")
        #expect(BotPromptCache.shared.count < 1000, "per-call speech is not cached")
    }

    @Test func aHostileCallerIdIsCutBeforeItIsSpoken() throws {
        let greeting = Speech("Hello {caller}, you called about {digits}.")
        let hostile = String(repeating: "Robert'); DROP TABLE calls; -- ", count: 20_000)
        let filled = greeting.filled(["caller": hostile, "digits": String(repeating: "1", count: 10_000)])
        #expect(filled.text.count <= Speech.maximumLength)
        #expect(filled.text.hasPrefix("Hello " + hostile.prefix(Speech.maximumVariableLength) + ", you called about 1 1 1"))
        // Sixty-four digits, spelt key by key, and the sentence's end.
        #expect(filled.text.hasSuffix(String(repeating: "1 ", count: Speech.maximumVariableLength - 1) + "1."))
        let onlyCaller = Speech("{caller}").filled(["caller": hostile])
        #expect(onlyCaller.text == String(hostile.prefix(Speech.maximumVariableLength)))
    }

    @Test func sayPromptsAreCheckedWhenTheScriptLoads() throws {
        func error(_ prompt: String) -> BotScriptError? {
            do {
                _ = try BotScript.parse(text: "start: a\nsteps:\n  a:\n    type: hangup\n    prompt:\(prompt)\n", format: .yaml,
                                        baseDirectory: "/tmp", fileName: "bot.yaml")
                return nil
            } catch {
                return error
            }
        }
        #expect(error(" say:Goodbye") == nil)
        #expect(error("\n      say: Goodbye {caller}\n      voice: en-gb\n      rate: 150\n      pitch: 40") == nil)
        #expect(error(" say:Your code is {pin}")?.message.contains("unknown variable {pin}; use {caller} or {digits}") == true)
        #expect(error("\n      say: Hi\n      voice: xx-nope")?.message.contains("no voice \"xx-nope\"") == true)
        #expect(error("\n      say: Hi\n      voice: xx-nope")?.line == 6)
        #expect(error("\n      say: Hi\n      rate: 20")?.kind == .invalidValue)
        #expect(error("\n      tone: 440\n      seconds: 1\n      voice: en")?.message.contains("voice goes with say") == true)
        let step = try BotScript.parse(text: "start: a\nsteps:\n  a:\n    type: say\n    text: Hello\n    pitch: 70\n    next: hangup\n",
                                       format: .yaml, baseDirectory: "/tmp")
        #expect(step.steps["a"] == .play(prompt: .say(Speech("Hello", pitch: 70)), next: .hangup))
    }
}
