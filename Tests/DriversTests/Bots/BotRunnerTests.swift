import Foundation
import Logging
import Drivers
import Parley
import Testing

/// Each prompt is a short tone of its own frequency, so `played` shows the branch taken.
@Suite struct BotRunnerTests {
    static let welcome = BotPrompt.tone(frequency: 440, seconds: 0.02)
    static let sales = BotPrompt.tone(frequency: 660, seconds: 0.02)
    static let support = BotPrompt.tone(frequency: 770, seconds: 0.02)
    static let bye = BotPrompt.tone(frequency: 330, seconds: 0.02)
    static let sorry = BotPrompt.tone(frequency: 220, seconds: 0.02)

    /// A menu whose timeout is long (10 s) unless a test sets it: tests that expect a digit
    /// fail the 5 s bound instead of passing by timing out.
    static func ivr(timeout: String = "10", retries: Int = 1, extra: String = "") -> String {
        """
        start: welcome
        steps:
          welcome:
            type: menu
            prompt: tone:440/20ms
            options:
              1: sales
              2: support
              9: hangup
            timeout: \(timeout)
            retries: \(retries)
            on_timeout: bye
            on_invalid: sorry
        \(extra)
          sales:
            type: play
            prompt: tone:660/20ms
            next: bye
          support:
            type: play
            prompt: tone:770/20ms
            next: welcome
          bye:
            type: hangup
            prompt: tone:330/20ms
          sorry:
            type: hangup
            prompt: tone:220/20ms
        """
    }

    /// A 20 ms 8 kHz mono WAV of silence.
    static func shortWAV() -> Data {
        func little<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
        let samples = 160
        var bytes = Array("RIFF".utf8) + little(UInt32(36 + samples * 2)) + Array("WAVEfmt ".utf8)
        bytes += little(UInt32(16)) + little(UInt16(1)) + little(UInt16(1)) + little(UInt32(8000)) + little(UInt32(16000))
        bytes += little(UInt16(2)) + little(UInt16(16)) + Array("data".utf8) + little(UInt32(samples * 2))
        return Data(bytes + [UInt8](repeating: 0, count: samples * 2))
    }

    @Test func aPromptThatCannotBeBuiltFailsTheBotInsteadOfReadingAsAHangup() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("parley-prompt-\(UUID().uuidString).wav").path
        try Self.shortWAV().write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let script = """
        start: intro
        steps:
          intro:
            type: play
            prompt: tone:440/20ms
            next: greeting
          greeting:
            type: play
            prompt: \(path)
            next: hangup
        """
        // The file was fine when the script loaded; it is not by the time it plays.
        let call = FakeBotCall(onPlay: { index, _, _ in
            if index == 0 { try? Data("not a wav".utf8).write(to: URL(fileURLWithPath: path)) }
            return true
        }, buildsSources: true)
        let outcome = try await runBot(script, on: call)
        guard case .failed(.promptFailed(let reason)) = outcome.ending else {
            Issue.record("a prompt that cannot be built ended as \(outcome.ending)")
            return
        }
        #expect(reason.contains(path))
        #expect(call.log.withLock { $0.hangups } == 1)
    }

    @Test func aDigitSelectsItsBranch() async throws {
        let call = FakeBotCall { index, _, call in
            if index == 0 { call.press("1") }
            return true
        }
        let outcome = try await runBot(Self.ivr(), on: call)
        #expect(outcome.steps == ["welcome", "sales", "bye"])
        #expect(outcome.digits == ["1"])
        #expect(outcome.ending == .botHungUp)
        #expect(call.played == [Self.welcome, Self.sales, Self.bye])
        #expect(call.log.withLock { $0.hangups } == 1)
    }

    @Test func digitsPressedDuringAPlayStepWaitForTheNextMenu() async throws {
        let call = FakeBotCall { index, _, call in
            // 2 goes to support, which goes back to the menu; 9 pressed while support plays
            // is waiting there when the menu prompt ends.
            if index == 0 { call.press("2") }
            if index == 1 { call.press("9") }
            return true
        }
        let outcome = try await runBot(Self.ivr(), on: call)
        #expect(outcome.steps == ["welcome", "support", "welcome"])
        #expect(outcome.digits == ["2", "9"])
        #expect(outcome.ending == .botHungUp)
        #expect(call.played == [Self.welcome, Self.support, Self.welcome])
    }

    @Test func aTimeoutReplaysThePromptThenGoesToTheTimeoutTarget() async throws {
        let call = FakeBotCall()
        let outcome = try await runBot(Self.ivr(timeout: "0.03", retries: 2), on: call)
        #expect(outcome.steps == ["welcome", "bye"])
        #expect(outcome.ending == .botHungUp)
        #expect(call.played == [Self.welcome, Self.welcome, Self.welcome, Self.bye])
        let times = call.log.withLock { $0.playTimes }
        for index in 1..<times.count {
            #expect(times[index] - times[index - 1] >= .milliseconds(30), "each replay waits out the 30 ms timeout")
        }
    }

    @Test func anInvalidDigitReplaysThePromptThenGoesToTheInvalidTarget() async throws {
        let call = FakeBotCall { index, _, call in
            if index < 2 { call.press("7") }
            return true
        }
        let outcome = try await runBot(Self.ivr(retries: 1), on: call)
        #expect(outcome.steps == ["welcome", "sorry"])
        #expect(outcome.digits == ["7", "7"])
        #expect(call.played == [Self.welcome, Self.welcome, Self.sorry])
    }

    @Test func aValidDigitOnTheRetryIsAccepted() async throws {
        let call = FakeBotCall { index, _, call in
            if index == 0 { call.press("5") }
            if index == 1 { call.press("1") }
            return true
        }
        let outcome = try await runBot(Self.ivr(retries: 1), on: call)
        #expect(outcome.steps == ["welcome", "sales", "bye"])
        #expect(call.played == [Self.welcome, Self.welcome, Self.sales, Self.bye])
    }

    @Test func theHangupTargetEndsTheCallWithoutAPrompt() async throws {
        let call = FakeBotCall { _, _, call in
            call.press("9")
            return true
        }
        let outcome = try await runBot(Self.ivr(), on: call)
        #expect(outcome.steps == ["welcome"])
        #expect(outcome.ending == .botHungUp)
        #expect(call.played == [Self.welcome])
        #expect(call.log.withLock { $0.hangups } == 1)
    }

    @Test func multiDigitEntriesEndAtTheTerminatorOrMaxDigits() async throws {
        let script = """
        start: pin
        steps:
          pin:
            type: menu
            prompt: tone:440/20ms
            max_digits: 3
            terminator: "#"
            options:
              12: short
              123: long
            timeout: 10
          short:
            type: hangup
            prompt: tone:660/20ms
          long:
            type: hangup
            prompt: tone:770/20ms
        """
        let terminated = FakeBotCall { _, _, call in
            call.press("12#")
            return true
        }
        #expect(try await runBot(script, on: terminated).steps == ["pin", "short"])
        let full = FakeBotCall { _, _, call in
            call.press("123")
            return true
        }
        #expect(try await runBot(script, on: full).steps == ["pin", "long"])
    }

    @Test func anEntryCutShortByTheTimeoutIsMatchedAsItIs() async throws {
        let script = """
        start: pin
        steps:
          pin:
            type: menu
            prompt: tone:440/20ms
            max_digits: 4
            options:
              42: found
            timeout: 0.05
            retries: 0
          found:
            type: hangup
        """
        let call = FakeBotCall { _, _, call in
            call.press("42")
            return true
        }
        #expect(try await runBot(script, on: call).steps == ["pin", "found"])
    }

    static let recordScript = """
    start: rec
    steps:
      rec:
        type: record
        prompt: tone:550/20ms
        path: msg-{call}-{n}.wav
        max_seconds: MAX
        stop_digit: "#"
        next: bye
      bye:
        type: hangup
        prompt: tone:330/20ms
    """

    @Test func aRecordingStopsOnTheStopDigit() async throws {
        let call = FakeBotCall(callID: "abc/../x", onStartRecording: { _, call in call.press("5#") })
        let script = Self.recordScript.replacingOccurrences(of: "MAX", with: "10")
        let outcome = try await runBot(script, on: call, recordDirectory: "/var/rec")
        #expect(outcome.steps == ["rec", "bye"])
        #expect(outcome.ending == .botHungUp)
        #expect(call.log.withLock { $0.recordingPaths } == ["/var/rec/msg-abc_.._x-1.wav"], "the call id cannot leave the directory")
        #expect(call.log.withLock { $0.recordingStops } == 1)
        let recording = try #require(outcome.recordings.first)
        #expect(outcome.recordings.count == 1)
        #expect(recording == BotRecordingResult(step: "rec", path: "/var/rec/msg-abc_.._x-1.wav", duration: recording.duration, stoppedBy: .digit("#")))
        #expect(recording.duration < .seconds(5))
        #expect(outcome.digits == ["5", "#"])
    }

    @Test func aRecordingStopsAtItsMaximumDuration() async throws {
        let call = FakeBotCall()
        let script = Self.recordScript.replacingOccurrences(of: "MAX", with: "0.05")
        let outcome = try await runBot(script, on: call)
        #expect(outcome.steps == ["rec", "bye"])
        let recording = try #require(outcome.recordings.first)
        #expect(recording.stoppedBy == .maxDuration)
        #expect(recording.duration >= .milliseconds(50))
        #expect(call.log.withLock { $0.recordingStops } == 1)
    }

    @Test func aRecordingThatCannotStartFailsTheCall() async throws {
        let call = FakeBotCall(onStartRecording: { _, _ in throw FakeCallError() })
        let script = Self.recordScript.replacingOccurrences(of: "MAX", with: "10")
        let outcome = try await runBot(script, on: call, recordDirectory: "/r")
        #expect(outcome.ending == .failed(.recordingFailed(path: "/r/msg-call-1-1.wav", reason: "disk full")))
        #expect(outcome.recordings.isEmpty)
        #expect(call.log.withLock { $0.hangups } == 1)
    }

    @Test func theCallerHangingUpWhileRecordingEndsTheRecording() async throws {
        let call = FakeBotCall(onStartRecording: { _, call in call.endCall() })
        let script = Self.recordScript.replacingOccurrences(of: "MAX", with: "10")
        let outcome = try await runBot(script, on: call)
        #expect(outcome.ending == .callerHungUp)
        #expect(outcome.recordings.first?.stoppedBy == .callEnded)
        #expect(call.log.withLock { $0.recordingStops } == 1)
        #expect(call.log.withLock { $0.hangups } == 0)
    }

    @Test func theCallerHangingUpMidPromptEndsTheRun() async throws {
        let call = FakeBotCall { _, _, call in
            call.endCall()
            return false
        }
        let outcome = try await runBot(Self.ivr(), on: call)
        #expect(outcome.steps == ["welcome"])
        #expect(outcome.ending == .callerHungUp)
        #expect(call.log.withLock { $0.hangups } == 0)
    }

    @Test func theCallerHangingUpWhileTheMenuWaitsEndsTheRun() async throws {
        let call = FakeBotCall { _, _, call in
            call.endCall()
            return true
        }
        let outcome = try await runBot(Self.ivr(), on: call)
        #expect(outcome.steps == ["welcome"])
        #expect(outcome.ending == .callerHungUp)
        #expect(call.played == [Self.welcome], "the bot does not wait out the 10 s timeout or retry")
    }

    @Test func aScriptThatLoopsForeverStopsAtTheStepCap() async throws {
        let call = FakeBotCall()
        let outcome = try await runBot("""
        start: again
        max_steps: 50
        steps:
          again:
            type: play
            prompt: tone:440/20ms
            next: again
        """, on: call)
        #expect(outcome.ending == .failed(.stepLimit(50)))
        #expect(outcome.steps.count == 50)
        #expect(call.played.count == 50)
        #expect(call.log.withLock { $0.hangups } == 1)
    }

    @Test func aMenuThatTimesOutIntoItselfStopsAtTheDefaultCap() async throws {
        let call = FakeBotCall()
        let outcome = try await runBot("""
        start: menu
        steps:
          menu:
            type: menu
            prompt: tone:440/20ms
            options:
              1: hangup
            timeout: 0
            retries: 0
            on_timeout: menu
        """, on: call)
        #expect(outcome.ending == .failed(.stepLimit(1000)))
        #expect(outcome.stepsVisited == 1000)
        #expect(outcome.steps.count == 256)
        #expect(outcome.stepsOmitted == 744)
    }

    @Test func cancellingTheRunHangsUp() async throws {
        let (played, playedContinuation) = AsyncStream.makeStream(of: Void.self)
        let call = FakeBotCall { _, _, _ in
            playedContinuation.yield()
            return true
        }
        let script = try BotScript.parse(text: Self.ivr(), format: .yaml, baseDirectory: "/tmp")
        let runner = BotRunner(script: script)
        let task = Task { await runner.run(on: call, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }) }
        var iterator = played.makeAsyncIterator()
        _ = await iterator.next()
        task.cancel()
        let outcome = await task.value
        #expect(outcome.ending == .failed(.cancelled))
        #expect(call.log.withLock { $0.hangups } == 1)
    }

    @Test func aScriptBuiltInCodeWithAMissingStepFails() async throws {
        let script = BotScript(start: "a", steps: ["a": .play(prompt: Self.welcome, next: .step("b"))])
        let call = FakeBotCall()
        let outcome = await BotRunner(script: script).run(on: call, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        #expect(outcome.ending == .failed(.unknownStep("b")))
        #expect(outcome.steps == ["a"])
    }
}
