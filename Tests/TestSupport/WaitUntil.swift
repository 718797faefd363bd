import Foundation

/// Waits, with a bound, until `condition` holds; checks every 50 ms. For state that has no event
/// stream (statistics counters).
public func waitUntil(_ what: String, within seconds: Double = 10, _ condition: () async -> Bool) async throws {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if await condition() { return }
        try await Task.sleep(for: .milliseconds(50))
    }
    throw WaitTimedOut(what: what, seconds: seconds, seen: "")
}

/// The same wait for a synchronous test (one that runs on its own thread, not in a task): checks
/// every 5 ms for at most `seconds`; returns whether `condition` came to hold.
public func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.005)
    }
    return condition()
}

/// Runs `body`, failing the test if it takes longer than `seconds`.
public func withTimeout<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () async -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { await body() }
        group.addTask {
            try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            return nil
        }
        guard let first = try await group.next(), let value = first else {
            group.cancelAll()
            throw WaitTimedOut(what: "completion", seconds: seconds, seen: "")
        }
        group.cancelAll()
        return value
    }
}
