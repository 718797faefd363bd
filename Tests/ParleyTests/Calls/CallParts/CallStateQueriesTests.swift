@testable import Parley
import Signaling
import Testing

/// The state lists a call asks its machine about, kept in the machine: past the answer, awaiting
/// it, recovering.
@Suite struct CallStateQueriesTests {
    @Test func everyLiveStateIsEitherBeforeOrPastTheAnswerExceptAnswering() {
        let listed = Set(CallStateMachine.beforeAnswer.map(\.name) + CallStateMachine.pastAnswer.map(\.name))
        #expect(Set(CallState.live.map(\.name)).subtracting(listed) == ["answering"])
        #expect(Set(CallStateMachine.beforeAnswer.map(\.name)).isDisjoint(with: CallStateMachine.pastAnswer.map(\.name)))
    }

    @Test func anOutgoingCallAwaitsItsAnswerUntilAnsweredAndIsPastItThroughADisruption() throws {
        var machine = CallStateMachine(direction: .outgoing)
        #expect(machine.awaitsAnswer && !machine.isPastAnswer && !machine.wasAnswered)
        try machine.begin(.dial)
        machine.handle(.ringing)
        #expect(machine.awaitsAnswer)
        machine.handle(.answered)
        #expect(!machine.awaitsAnswer && machine.isPastAnswer && machine.wasAnswered)
        machine.handle(.networkLost)
        #expect(machine.isRecovering && machine.isPastAnswer)
        machine.handle(.recovered)
        #expect(!machine.isRecovering && machine.state == .active)
        machine.handle(.reconnecting)
        #expect(machine.isRecovering)
        machine.handle(.ended(TerminationReason(localStatus: .reconnectTimeout)))
        #expect(!machine.isPastAnswer && !machine.isRecovering && !machine.awaitsAnswer && machine.wasAnswered)
    }

    /// An answer the machine does not take (an incoming call that is not answering) is not an
    /// answer: the call still awaits one.
    @Test func anAnswerSignalTheMachineRefusesLeavesTheCallUnanswered() {
        var machine = CallStateMachine(direction: .incoming)
        let taken = machine.handle(.answered)
        #expect(!taken && !machine.wasAnswered && machine.awaitsAnswer)
    }
}
