@testable import Drivers
@testable import Parley
import Locking
import Testing

/// The inbox is where a bot learns that its call ended; an end that slips past a waiting step
/// leaves the bot waiting out the step's whole timeout on a dead call.
@Suite struct DigitInboxTests {
    static let rounds = 2000
    /// Far more than 2,000 rounds take when no wait is lost; a lost wait never returns at all.
    static let bound = 30.0

    @Test func aFinishRacingAWaitIsNeverLost() async throws {
        try await expectNoneLost("the call's end") { inbox in
            async let event = inbox.next(before: .now + .seconds(1))
            async let finished: Void = inbox.finish()
            await finished
            return await event == .ended
        }
    }

    @Test func aDigitRacingAWaitIsNeverLost() async throws {
        try await expectNoneLost("a digit") { inbox in
            async let event = inbox.next(before: .now + .seconds(1))
            async let pushed: Void = inbox.push("7")
            await pushed
            return await event == .digit("7")
        }
    }

    @Test func aFinishRacingAListeningStepIsNeverLost() async throws {
        try await expectNoneLost("the call's end, while listening,") { inbox in
            _ = await inbox.beginListening()
            async let event = inbox.nextSound(before: .now + .seconds(1))
            async let finished: Void = inbox.finish()
            await finished
            return await event == .ended
        }
    }

    /// Runs `round` on a fresh inbox `rounds` times: each starts a wait and, in a task of its
    /// own (so that the two race), the event it waits for, and returns whether the wait saw it.
    private func expectNoneLost(_ what: String, _ round: @escaping @Sendable (DigitInbox) async -> Bool) async throws {
        let missed = try #require(await valueOrAbandon(within: Self.bound) {
            var missed = 0
            for _ in 0..<Self.rounds where !(await round(DigitInbox())) { missed += 1 }
            return missed
        }, "a wait never returned: \(what) was lost and so was its deadline")
        #expect(missed == 0, "\(missed) of \(Self.rounds) waits missed \(what) and ran to their deadline")
    }

    @Test func aWaitEndsAtItsDeadlineAndWhenCancelled() async {
        let inbox = DigitInbox()
        #expect(await inbox.next(before: .now + .milliseconds(20)) == .timedOut)
        let waiting = Task { await inbox.next(before: .now + .seconds(30)) }
        waiting.cancel()
        #expect(await waiting.value == .cancelled)
    }
}

/// `body`'s value, or nil once `seconds` pass. Unlike a task group this does not wait for a
/// body that never returns (a continuation nobody resumes ignores cancellation), so a lost
/// wake-up fails the test instead of hanging the run; the abandoned task stays parked.
func valueOrAbandon<T: Sendable>(within seconds: Double, _ body: @escaping @Sendable () async -> T) async -> T? {
    let waiting = Lock<CheckedContinuation<T?, Never>?>(nil)
    let take: @Sendable () -> CheckedContinuation<T?, Never>? = { waiting.withLock { continuation in
        defer { continuation = nil }
        return continuation
    } }
    return await withCheckedContinuation { continuation in
        waiting.withLock { $0 = continuation }
        // Unstructured: neither side may wait for the other.
        Task { take()?.resume(returning: await body()) }
        Task {
            try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            take()?.resume(returning: nil)
        }
    }
}
