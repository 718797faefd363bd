import Foundation
import Media
@testable import Drivers
@testable import Parley
import TestSupport
import Testing

/// A `heard:` step right after a key press hears a barge-in IVR's answer that continues straight
/// from the prompt it cut short; after any other step, the tail of speech under way is still
/// skipped (docs/speech.md, "How a call is heard").
@Suite(.serialized) struct BotBargeInHearingTests {
    static let answerCheck = """
          answer:
            type: expect
            heard: you have reached the sales team
            within: 20
        """

    /// The menu cut mid-sentence and the answer at once, no quiet between, then quiet.
    static func cutShortMenuThenAnswer() async throws -> [Int16] {
        let rate = SpeechDecoder.sampleRate
        let menu = try await FreshSpeech.audio("For support press two. For opening hours press three.", voice: "en", sampleRate: rate)
        let answer = try await FreshSpeech.audio("You have reached the sales team. Goodbye.", voice: "en", sampleRate: rate)
        let spoken = try #require(menu.firstIndex { abs(Int($0)) > 1000 })
        let answerStart = try #require(answer.firstIndex { abs(Int($0)) > 1000 })
        return Array(menu[spoken..<min(menu.count, spoken + rate)]) + Array(answer[answerStart...]) + [Int16](repeating: 0, count: rate)
    }

    /// Runs `script` on a call whose far end says `audio` once the answer step listens, then hangs up.
    static func run(_ script: String, hearing audio: [Int16]) async throws -> BotOutcome {
        let call = FakeBotCall()
        async let outcome = runBot(script, on: call, within: 60)
        let deadline = ContinuousClock.now + .seconds(10)
        while call.audioListener.withLock({ $0 == nil }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(call.say(audio), "the answer step never listened")
        call.endCall()
        return try await outcome
    }

    @Test(.notInQuickCheck) func anAnswerStraightAfterTheKeyPressIsHeard() async throws {
        let script = """
            start: press
            steps:
              press:
                type: send
                digits: "1"
                next: answer
            \(Self.answerCheck)
            """
        let outcome = try await Self.run(script, hearing: try await Self.cutShortMenuThenAnswer())
        #expect(outcome.verdict(callingSide: true) == .passed)
    }

    /// After a step that pressed no key, speech under way is an earlier prompt's tail (the rule
    /// the key press lifts: this is the barge-in IVR's tester without it); a step that fails
    /// says what it heard before the call ended.
    @Test(.notInQuickCheck) func afterAnyOtherStepTheSpeechUnderWayIsSkipped() async throws {
        let script = """
            start: beep
            steps:
              beep:
                type: play
                prompt: tone:440/100ms
                next: answer
            \(Self.answerCheck)
            """
        let outcome = try await Self.run(script, hearing: try await Self.cutShortMenuThenAnswer())
        // The answer's "Goodbye", after the pause at its full stop, is new speech: the step
        // heard that and says so.
        let verdict = "\(outcome.verdict(callingSide: true))"
        #expect(verdict.hasPrefix("failed at step \"answer\": expected \"you have reached the sales team\" within 20 s; the call ended (NORMAL_CLEARING) first; heard "), "\(verdict)")
    }
}
