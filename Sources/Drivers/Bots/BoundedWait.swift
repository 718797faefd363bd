import Locking
import Parley

/// Waits for work that may not respond to cancellation (a recognition job already lent a
/// decoder runs to its end), for at most a bound: the waiter goes on without it, and the work's
/// late result is dropped (docs/speech.md, "How a call is heard").
enum BoundedWait {
    /// `task`'s value, or nil when `bound` passed first; `task` is then cancelled.
    static func value<Value: Sendable>(of task: Task<Value, Never>, within bound: Duration) async -> Value? {
        let once = FirstResume<Value?>()
        // Unstructured: the two race, the loser's resume is dropped, and both are cancelled
        // below once one has won.
        let finishing = Task { once.resume(await task.value) }
        // Unstructured: the bound's timer, cancelled below when the work wins.
        let expiring = Task {
            guard (try? await Task.sleep(for: bound)) != nil else { return }
            once.resume(nil)
        }
        let result = await withCheckedContinuation { once.wait($0) }
        finishing.cancel()
        expiring.cancel()
        if result == nil { task.cancel() }
        return result
    }
}

/// The first of several racers' values, handed to one waiter whether it comes before or after
/// the waiter does; later values are dropped.
private final class FirstResume<Value: Sendable>: Sendable {
    private enum State {
        case empty
        case waiting(CheckedContinuation<Value, Never>)
        case decided(Value)
        case delivered
    }

    private let state = Lock<State>(.empty)

    func wait(_ continuation: CheckedContinuation<Value, Never>) {
        let early = state.withLock { state -> Value? in
            switch state {
            case .decided(let value):
                state = .delivered
                return value
            default:
                state = .waiting(continuation)
                return nil
            }
        }
        if let early { continuation.resume(returning: early) }
    }

    func resume(_ value: Value) {
        let waiting = state.withLock { state -> CheckedContinuation<Value, Never>? in
            switch state {
            case .empty:
                state = .decided(value)
                return nil
            case .waiting(let continuation):
                state = .delivered
                return continuation
            case .decided, .delivered:
                return nil
            }
        }
        waiting?.resume(returning: value)
    }
}
