import Logging
import Drivers
import Parley
import Testing

/// The `forward` step: the prompt plays, then the caller is sent on; a refusal fails the bot.
@Suite struct BotForwardRunTests {
    /// A call that records where it was forwarded; `refusal` makes it refuse.
    final class ForwardingCall: BotCallControl, @unchecked Sendable {
        let callID = "forward-1"
        let digits: AsyncStream<Character>
        let refusal: String?
        let log = Guarded((played: 0, forwardedTo: [String](), hangups: 0))

        init(refusal: String? = nil) {
            self.refusal = refusal
            digits = AsyncStream { _ in }
        }

        func play(_ prompt: BotPrompt) async -> Bool {
            log.withLock { $0.played += 1 }
            return true
        }

        func armBargeIn(onSpeech: @escaping @Sendable () -> Void) {}
        func stopPrompt() {}
        func disarmBargeIn() {}
        func startRecording(path: String) throws {}
        func stopRecording() {}

        func forward(to destination: String) async -> String? {
            log.withLock { $0.forwardedTo.append(destination) }
            return refusal
        }

        func hangup() async { log.withLock { $0.hangups += 1 } }

        // A forwarding bot neither listens nor sends digits.
        func listen(for sound: BotSound, heard: @escaping @Sendable () -> Void) {}
        func stopListening() {}
        func sendDigits(_ digits: String) async throws {}
        func endCause() async -> String { "NORMAL_CLEARING" }
    }

    static let script = """
        start: op
        steps:
          op:
            type: forward
            prompt: tone:700/100ms
            to: carol
        """

    static func run(_ call: ForwardingCall) async throws -> BotOutcome {
        let script = try BotScript.parse(text: Self.script, format: .yaml, baseDirectory: ".")
        return await BotRunner(script: script).run(on: call, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
    }

    @Test func theBotPlaysThePromptThenForwardsWithoutHangingUp() async throws {
        let call = ForwardingCall()
        let outcome = try await Self.run(call)
        #expect(outcome.ending == .forwarded(to: "carol"))
        #expect(outcome.steps == ["op"])
        let log = call.log.withLock { $0 }
        #expect(log.played == 1)
        #expect(log.forwardedTo == ["carol"])
        #expect(log.hangups == 0)
    }

    @Test func aRefusedForwardFailsTheBotWhichHangsUp() async throws {
        let call = ForwardingCall(refusal: "carol is not a user or bot here")
        let outcome = try await Self.run(call)
        #expect(outcome.ending == .failed(.forwardFailed(destination: "carol", reason: "carol is not a user or bot here")))
        #expect(call.log.withLock { $0.hangups } == 1)
    }
}
