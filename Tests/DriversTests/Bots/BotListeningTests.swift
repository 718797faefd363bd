import Foundation
import Drivers
import Parley
import Testing

/// `wait`, `expect` and `send` on a call the test plays the far end of.
@Suite struct BotListeningTests {
    static let tester = """
        start: greeting
        steps:
          greeting: {type: expect, for: speech, within: 5, next: greeting_end}
          greeting_end: {type: wait, for: silence, ms: 600, timeout: 5, next: choose, on_timeout: choose}
          choose: {type: send, digits: "2", next: helpdesk}
          helpdesk: {type: expect, for: tone, frequency: 880, within: 2, next: goodbye}
          goodbye: {type: expect, for: hangup, cause: NORMAL_CLEARING, within: 5, next: hangup}
        """

    /// Plays the far end: speech, then silence, then (after the digit) a tone, then it hangs up.
    static func answer(_ call: FakeBotCall, tone: Double) async throws {
        try #require(await until { call.listeningFor == .speech })
        call.hear(.speech)
        try #require(await until { call.listeningFor == .silence(.milliseconds(600)) })
        call.hear(.silence(.milliseconds(600)))
        try #require(await until { call.listeningFor == .tone(frequency: 880, minimum: .milliseconds(100)) })
        #expect(call.sent.withLock { $0 } == ["2"])
        call.hear(.tone(frequency: tone, minimum: .milliseconds(100)))
        // The bot stops listening once it has heard the tone, or gives up on it; then the far end hangs up.
        try #require(await until(seconds: 5) { call.listeningFor == nil })
        call.endCall()
    }

    /// A bounded wait for `condition`.
    static func until(seconds: Double = 5, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return false
    }

    @Test func aTesterThatHearsWhatItExpectsPasses() async throws {
        let call = FakeBotCall()
        let farEnd = Task { try await Self.answer(call, tone: 880) }
        let outcome = try await runBot(Self.tester, on: call, within: 10)
        try await farEnd.value
        #expect(outcome.steps == ["greeting", "greeting_end", "choose", "helpdesk", "goodbye"])
        #expect(outcome.verdict(callingSide: true) == .passed)
    }

    @Test func aTesterThatHearsTheWrongToneFailsNamingTheStep() async throws {
        let call = FakeBotCall()
        let farEnd = Task { try await Self.answer(call, tone: 660) }
        let outcome = try await runBot(Self.tester, on: call, within: 10)
        try await farEnd.value
        guard case .failed(let step, let reason) = outcome.verdict(callingSide: true) else {
            Issue.record("the verdict passed")
            return
        }
        #expect(step == "helpdesk")
        #expect(reason.contains("880 Hz tone within 2 s"))
        #expect(call.log.withLock { $0.hangups } == 1)
    }

    @Test func aWaitThatTimesOutTakesItsBranch() async throws {
        let call = FakeBotCall()
        let outcome = try await runBot("""
            start: listen
            steps:
              listen: {type: wait, for: speech, timeout: 0.1, next: hangup, on_timeout: nothing}
              nothing: {type: play, prompt: silence/10ms, next: hangup}
            """, on: call)
        #expect(outcome.steps == ["listen", "nothing"])
        #expect(outcome.verdict(callingSide: false) == .passed)
    }

    @Test func theCallEndingWithAnotherCauseFailsTheExpectation() async throws {
        let call = FakeBotCall()
        call.cause.withLock { $0 = "USER_BUSY" }
        call.endCall()
        let outcome = try await runBot("""
            start: end
            steps:
              end: {type: expect, for: hangup, cause: NORMAL_CLEARING, within: 1}
            """, on: call)
        #expect(outcome.verdict(callingSide: true) == .failed(step: "end", reason: "expected the call to end with NORMAL_CLEARING; it ended with USER_BUSY"))
    }

    @Test func badListeningStepsAreRefusedWithTheLine() throws {
        func error(_ yaml: String) -> String? {
            do {
                _ = try BotScript.parse(text: yaml, format: .yaml, baseDirectory: "/tmp")
                return nil
            } catch { return error.description }
        }
        #expect(error("start: a\nsteps:\n  a: {type: wait, for: silence, next: hangup}\n")?.contains("no \"ms\"") == true)
        #expect(error("start: a\nsteps:\n  a: {type: wait, for: tone, frequency: 9000, next: hangup}\n")?.contains("50-3900 Hz") == true)
        #expect(error("start: a\nsteps:\n  a: {type: wait, for: hangup, next: hangup}\n")?.contains("use one of: speech, silence, tone") == true)
        #expect(error("start: a\nsteps:\n  a: {type: send, digits: \"12x\", next: hangup}\n")?.contains("0-9, *, #, A-D") == true)
        #expect(error("start: a\nsteps:\n  a: {type: expect, for: speech, cause: USER_BUSY}\n")?.contains("cause goes with for: hangup") == true)
        #expect(error("start: a\nsteps:\n  a: {type: expect, for: speech, ms: 5}\n")?.contains("ms does not go with for: speech") == true)
    }
}
