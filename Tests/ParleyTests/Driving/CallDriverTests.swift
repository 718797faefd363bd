import Drivers
import Locking
import Logging
@testable import Parley
import TestSupport
import Testing

/// `CallDriver` owns a call's children: none outlives the call, and a child's failure ends it.
/// The first two tests drive a call that is never placed (a recording dialect, no media), the
/// last a real call through the embedded switch on loopback.
@Suite(.leakChecked) struct CallDriverTests {
    static func unplacedCall() -> Call {
        Call(id: "driven", direction: .outgoing, remoteParty: "bob", signalling: CallRaceTests.RecordingSignalling(holdsOpen: false),
             media: CallRaceTests.media(), logger: Logger(label: "test.driver"))
    }

    /// `run()`'s outcome, or nil when it did not return within `seconds`.
    static func run(_ driver: CallDriver, within seconds: Int = 10) async -> CallDriver.Outcome? {
        await withTaskGroup(of: CallDriver.Outcome?.self) { group in
            group.addTask { await driver.run() }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// What a long-lived child saw of its own end.
    struct ChildEnd: Sendable, Equatable {
        var returned = false
        var cancelled = false
    }

    /// A value the test's children and the test share.
    final class Shared<Value: Sendable>: Sendable {
        private let lock: Lock<Value>
        init(_ value: Value) { lock = Lock(value) }
        var value: Value {
            get { lock.withLock { $0 } }
            set { lock.withLock { $0 = newValue } }
        }
    }

    @Test func childrenStillRunningWhenTheCallEndsAreCancelledAndAwaited() async throws {
        let call = Self.unplacedCall()
        let end = Shared(ChildEnd())
        var driver = CallDriver(call: call)
        driver.add {
            // Would keep the call's child alive for an hour if the driver did not cancel it.
            try? await Task.sleep(for: .seconds(3600))
            end.value = ChildEnd(returned: true, cancelled: Task.isCancelled)
        }
        driver.add { await call.hangup() }
        let outcome = try #require(await Self.run(driver), "the driver did not return: a child was not cancelled")
        // Read as run() returns: a child merely cancelled, not awaited, may not have returned yet.
        #expect(end.value == ChildEnd(returned: true, cancelled: true))
        #expect(outcome.reason.localStatus == .endedByLocalUser)
        #expect(!outcome.answered)
        #expect(outcome.childFailure == nil)
        #expect(!outcome.timerHungUp)
    }

    @Test func aChildThatThrowsHangsUpTheCallAndIsTheOutcomesFailure() async throws {
        let call = Self.unplacedCall()
        var driver = CallDriver(call: call)
        driver.add { () throws(ParleyError) in throw ParleyError(kind: .callState, message: "the answer failed") }
        let outcome = try #require(await Self.run(driver), "the driver did not return: the failing child did not end the call")
        let failure = try #require(outcome.childFailure)
        #expect(failure.kind == .callState)
        #expect(failure.message == "the answer failed")
        #expect(outcome.reason.localStatus == .endedByLocalUser)
        #expect(await call.state.isDone)
    }

    /// A real answered call: `whenActive` runs once, the hang-up timer ends the call and says
    /// so, and a child still waiting is cancelled and awaited.
    @Test func theHangUpTimerEndsAnActiveCall() async throws {
        let embedded = try await CallThroughSwitchTests.startSwitch()
        let alice = try CallThroughSwitchTests.client("alice", at: embedded.url, play: "tone:440", record: "null")
        let bob = try CallThroughSwitchTests.client("bob", at: embedded.url, play: "tone:880", record: "null")
        let (call, incoming) = try await CallThroughSwitchTests.dialAndOffer(from: alice, to: bob)
        let activations = Shared(0)
        let end = Shared(ChildEnd())
        var driver = CallDriver(call: call)
        driver.whenActive = { activations.value += 1 }
        driver.hangUp(after: .milliseconds(300))
        driver.add {
            try? await Task.sleep(for: .seconds(3600))
            end.value = ChildEnd(returned: true, cancelled: Task.isCancelled)
        }
        try await incoming.answer()
        let outcome = try #require(await Self.run(driver, within: 20))
        #expect(outcome.answered)
        #expect(outcome.timerHungUp)
        #expect(outcome.reason.localStatus == .endedByLocalUser)
        #expect(activations.value == 1)
        #expect(end.value == ChildEnd(returned: true, cancelled: true))
        _ = await incoming.call.waitUntilDone()
        await alice.disconnect()
        await bob.disconnect()
        await embedded.stop()
    }
}
