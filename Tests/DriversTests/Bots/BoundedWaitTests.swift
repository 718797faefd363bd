import Dispatch
@testable import Drivers
@testable import Parley
import Testing

/// A step's verdict waits for recognition with a bound (docs/speech.md, "How a call is heard").
@Suite struct BoundedWaitTests {
    @Test func workThatFinishesInTimeGivesItsValue() async {
        let work = Task { 42 }
        #expect(await BoundedWait.value(of: work, within: .seconds(10)) == 42)
    }

    /// Work that ignores cancellation, as a recognition job lent a decoder does: the wait ends
    /// at the bound all the same, and the work is told to stop.
    @Test func workThatOverrunsIsLeftAtTheBound() async {
        let work = Task { () -> Int in
            // Not cancellable: a queue resumes it after 3 s, whatever happens to the task.
            await withCheckedContinuation { continuation in
                DispatchQueue.global().asyncAfter(deadline: .now() + 3) { continuation.resume(returning: 1) }
            }
        }
        let started = ContinuousClock.now
        let value = await BoundedWait.value(of: work, within: .milliseconds(200))
        let waited = ContinuousClock.now - started
        #expect(value == nil)
        #expect(waited >= .milliseconds(200))
        #expect(waited < .seconds(10))
        #expect(work.isCancelled)
        #expect(await work.value == 1)
    }
}
