import Foundation
import Media
import Drivers
import Parley
import Testing

/// `barge_in: true`: a key or the caller's speech stops the prompt; the menu then goes on.
@Suite struct BotBargeInTests {
    static func script(bargeIn: Bool) -> String {
        """
        start: welcome
        steps:
          welcome:
            type: menu
            prompt: tone:440/5s
            barge_in: \(bargeIn)
            options:
              1: sales
            timeout: 3
            on_timeout: hangup
            on_invalid: hangup
          sales:
            type: play
            prompt: tone:660/20ms
            next: hangup
        """
    }

    @Test func aKeyStopsTheWelcomeAndIsTakenByTheMenu() async throws {
        let pressed = Guarded<ContinuousClock.Instant?>(nil)
        let ranToItsEnd = Guarded<Bool?>(nil)
        let call = FakeBotCall { index, _, call in
            guard index == 0 else { return true }
            try? await Task.sleep(for: .milliseconds(100))
            pressed.withLock { $0 = .now }
            call.press("1")
            let ended = await call.playUntilStopped()
            ranToItsEnd.withLock { $0 = ended }
            return ended
        }
        let outcome = try await runBot(Self.script(bargeIn: true), on: call)
        #expect(outcome.steps == ["welcome", "sales"])
        #expect(outcome.ending == .botHungUp)
        // Cause and effect, not speed (make bench measures that): the stop came after the key
        // and cut the prompt short.
        let stop = try #require(call.promptStops.withLock { $0.first })
        let latency = stop - (try #require(pressed.withLock { $0 }))
        print("[barge-in] the prompt stopped \(latency) after the key")
        #expect(latency >= .zero, "the prompt stopped \(latency) after the key")
        #expect(ranToItsEnd.withLock { $0 } == false, "the key cut the prompt short")
    }

    @Test func speechStopsThePromptAndTheMenuWaitsForAKey() async throws {
        let call = FakeBotCall { index, _, call in
            guard index == 0 else { return true }
            try? await Task.sleep(for: .milliseconds(100))
            call.speak()
            let stopped = await call.playUntilStopped()
            call.press("1")
            return stopped
        }
        let outcome = try await runBot(Self.script(bargeIn: true), on: call)
        #expect(outcome.steps == ["welcome", "sales"])
        #expect(call.promptStops.withLock { $0.count } == 1)
        #expect(call.speechListener.withLock { $0 } == nil, "the bot stops listening once the prompt is over")
    }

    @Test func aKeyPressedAheadStopsTheBargeInPromptAtOnce() async throws {
        let ranToItsEnd = Guarded<Bool?>(nil)
        let call = FakeBotCall { index, _, call in
            guard index == 0 else { return true }
            let ended = await call.playUntilStopped()
            ranToItsEnd.withLock { $0 = ended }
            return ended
        }
        call.press("1")
        let outcome = try await runBot(Self.script(bargeIn: true), on: call)
        #expect(outcome.steps == ["welcome", "sales"])
        // The welcome either never starts or is stopped, never played to its end.
        #expect(ranToItsEnd.withLock { $0 } != true, "the key pressed ahead let the welcome play to its end")
        if ranToItsEnd.withLock({ $0 }) == false { #expect(call.promptStops.withLock { $0.count } >= 1) }
        #expect(call.played.last == .tone(frequency: 660, seconds: 0.02))
    }

    @Test func withoutBargeInAKeyWaitsForThePromptToEnd() async throws {
        let call = FakeBotCall { index, _, call in
            if index == 0 {
                call.press("1")
                call.speak()
            }
            return true
        }
        let outcome = try await runBot(Self.script(bargeIn: false), on: call)
        #expect(outcome.steps == ["welcome", "sales"])
        #expect(call.promptStops.withLock { $0.isEmpty })
    }

    @Test func bargeInIsAFlagOfPromptingSteps() throws {
        let script = try BotScript.parse(text: Self.script(bargeIn: true), format: .yaml, baseDirectory: "/tmp")
        guard case .menu(let menu) = try #require(script.steps["welcome"]) else {
            Issue.record("welcome is not a menu")
            return
        }
        #expect(menu.prompt == .bargeIn(.tone(frequency: 440, seconds: 5)))
        #expect(menu.prompt.description == "tone:440/5s (barge-in)")
        let bad = #expect(throws: BotScriptError.self) {
            try BotScript.parse(text: Self.script(bargeIn: true).replacingOccurrences(of: "barge_in: true", with: "barge_in: sometimes"),
                                format: .yaml, baseDirectory: "/tmp", fileName: "bot.yaml")
        }
        #expect(bad?.description == "bot.yaml:6: barge_in of step \"welcome\" must be true or false, found \"sometimes\"")
    }
}

/// The energy detector that tells a caller's speech from silence, noise and clicks.
@Suite struct SpeechOnsetDetectorTests {
    /// Feeds 20 ms frames of `signal` (one amplitude per frame, a 300 Hz tone) and returns the
    /// frame after which speech was heard, if it was.
    private func onsetFrame(_ amplitudes: [Double], sampleRate: Int = 8000) -> Int? {
        let heard = Guarded(false)
        let detector = SpeechOnsetDetector(sampleRate: sampleRate) { heard.withLock { $0 = true } }
        let size = sampleRate / 50
        var phase = 0.0
        for (index, amplitude) in amplitudes.enumerated() {
            let frame = (0..<size).map { _ -> Int16 in
                phase += 2 * .pi * 300 / Double(sampleRate)
                return Int16(amplitude * 32767 * sin(phase))
            }
            frame.withUnsafeBufferPointer { detector.listen(to: $0) }
            if heard.withLock({ $0 }) { return index }
        }
        return nil
    }

    @Test func speechIsHeardAfterTheAttack() {
        // Silence, then a voice at about -20 dBFS from frame 10: heard at its third frame (60 ms).
        #expect(onsetFrame(Array(repeating: 0, count: 10) + Array(repeating: 0.1, count: 20)) == 12)
        #expect(onsetFrame(Array(repeating: 0, count: 10) + Array(repeating: 0.1, count: 20), sampleRate: 48000) == 12)
    }

    @Test func silenceNoiseAndClicksAreNotSpeech() {
        #expect(onsetFrame(Array(repeating: 0, count: 100)) == nil)
        // -50 dBFS: line noise.
        #expect(onsetFrame(Array(repeating: 0.003, count: 100)) == nil)
        // A 20 ms click every half second.
        #expect(onsetFrame((0..<100).map { $0.isMultiple(of: 25) ? 0.5 : 0 }) == nil)
    }

    @Test func gapsBetweenSyllablesShorterThanTheHangoverDoNotResetTheAttack() {
        // 40 ms of voice, 100 ms gap, 40 ms of voice: heard in the second syllable.
        #expect(onsetFrame([0, 0.1, 0.1, 0, 0, 0, 0, 0, 0.1, 0.1, 0]) == 8)
        // The same with a 200 ms gap: two clicks, not speech.
        #expect(onsetFrame([0, 0.1, 0.1] + Array(repeating: 0, count: 10) + [0.1, 0.1, 0]) == nil)
    }
}
