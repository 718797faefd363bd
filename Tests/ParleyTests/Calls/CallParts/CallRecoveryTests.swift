@testable import Parley
import Testing

/// A call's recovery state on its own: moves, one renegotiation at a time, the path that waits
/// for media, and the deadline.
@Suite struct CallRecoveryTests {
    private func sleeper() -> Task<Void, Never> { Task { try? await Task.sleep(for: .seconds(600)) } }

    @Test func oneRenegotiationAtATime() {
        var recovery = CallRecovery(reconnectTimeout: .seconds(60))
        let first = recovery.beginRenegotiating()
        let overlapping = recovery.beginRenegotiating()
        #expect(first && !overlapping && recovery.renegotiating)
        recovery.endRenegotiating()
        let next = recovery.beginRenegotiating()
        #expect(next)
    }

    @Test func aMoveLastsUntilThePathIsRenewed() {
        var recovery = CallRecovery(reconnectTimeout: .seconds(60))
        #expect(!recovery.networkMoved)
        recovery.addressesMoved()
        #expect(recovery.networkMoved)
        recovery.pathRenewed()
        #expect(!recovery.networkMoved)
    }

    @Test func completingARecoveryForgetsItsPathAndCancelsItsDeadline() async {
        var recovery = CallRecovery(reconnectTimeout: .seconds(60))
        let deadline = sleeper()
        recovery.arm(deadline: deadline)
        let second = sleeper()
        recovery.arm(deadline: second)
        #expect(second.isCancelled && !deadline.isCancelled && recovery.hasDeadline)
        recovery.signallingDone(by: .iceRestart)
        #expect(recovery.pendingPath == .iceRestart)
        recovery.complete()
        #expect(recovery.pendingPath == nil && !recovery.hasDeadline && deadline.isCancelled)
    }

    @Test func theEndCancelsTheDeadlineAndAPassedDeadlineIsSpent() {
        var recovery = CallRecovery(reconnectTimeout: .seconds(1))
        let deadline = sleeper()
        recovery.arm(deadline: deadline)
        recovery.deadlinePassed()
        #expect(!recovery.hasDeadline && !deadline.isCancelled)
        deadline.cancel()
        let another = sleeper()
        recovery.arm(deadline: another)
        #expect(recovery.end() == nil)
        #expect(another.isCancelled && !recovery.hasDeadline)
    }
}
