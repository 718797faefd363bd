import Locking

/// Waits for work that may not respond to cancellation (a recognition job already lent a
/// decoder runs to its end), for at most a bound: the waiter goes on without it, and the work's
/// late result is dropped (docs/speech.md, "How a call is heard").
enum BoundedWait {
    /// `task`'s value, or nil when `bound` passed first; `task` is then cancelled.
    static func value<Value: Sendable>(of task: Task<Value, Never>, within bound: Duration) async -> Value? {
        let once = FirstResume<Value?>()
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
            once.set(continuation)
            // Unstructured: the two race, and the loser's resume is dropped.
            Task { once.resume(await task.value) }
            Task {
                try? await Task.sleep(for: bound)
                once.resume(nil)
            }
        }
        if result == nil { task.cancel() }
        return result
    }
}

/// A continuation resumed by the first of several racers only.
private final class FirstResume<Value: Sendable>: Sendable {
    private let continuation = Lock<CheckedContinuation<Value, Never>?>(nil)

    func set(_ waiting: CheckedContinuation<Value, Never>) {
        continuation.withLock { $0 = waiting }
    }

    func resume(_ value: Value) {
        let waiting = continuation.withLock { current -> CheckedContinuation<Value, Never>? in
            defer { current = nil }
            return current
        }
        waiting?.resume(returning: value)
    }
}
