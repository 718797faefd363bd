import Drivers
import Parley
import Testing

/// A tester's verdict when the call ended under it (docs/bots.md, "Verdicts").
@Suite struct BotVerdictTests {
    private static let cutShort = BotOutcome(steps: ["greeting", "menu"], digits: [], recordings: [], ending: .callerHungUp)

    @Test func aTesterWhoseCallThisSideEndedIsAbortedNotFailed() {
        let verdict = Self.cutShort.verdict(callingSide: true, stoppedBy: "--duration 3 s ran out")
        #expect(verdict == .aborted(step: "menu", reason: "--duration 3 s ran out"))
        #expect(verdict.name == "aborted")
        #expect(verdict.description == "aborted at step \"menu\": --duration 3 s ran out")
    }

    @Test func anExpectationThatSawOurHangupIsAbortedToo() {
        let outcome = BotOutcome(steps: ["greeting"], digits: [], recordings: [],
                                 ending: .failed(.expectationFailed(step: "greeting", reason: "expected speech within 10 s; the call ended (NORMAL_CLEARING) first")))
        #expect(outcome.verdict(callingSide: true, stoppedBy: "interrupted (Ctrl-C)") == .aborted(step: "greeting", reason: "interrupted (Ctrl-C)"))
        #expect(outcome.verdict(callingSide: true) == .failed(step: "greeting", reason: "expected speech within 10 s; the call ended (NORMAL_CLEARING) first"))
    }

    @Test func theFarEndHangingUpStillFailsTheStep() {
        #expect(Self.cutShort.verdict(callingSide: true) == .failed(step: "menu", reason: "the far end hung up"))
    }

    @Test func aBotThatEndedTheCallItselfPassesWhateverStoppedIt() {
        let outcome = BotOutcome(steps: ["greeting"], digits: [], recordings: [], ending: .botHungUp)
        #expect(outcome.verdict(callingSide: true, stoppedBy: "interrupted (Ctrl-C)") == .passed)
    }

    @Test func theAnsweringSideIsNeverAborted() {
        #expect(Self.cutShort.verdict(callingSide: false, stoppedBy: "--duration 3 s ran out") == .passed)
    }
}
