import Foundation

public struct WaitTimedOut: Error, CustomStringConvertible {
    public let what: String
    public let seconds: Double
    public let seen: String
    public var description: String { "waited \(seconds) s for \(what); saw: \(seen)" }

    public init(what: String, seconds: Double, seen: String) {
        self.what = what
        self.seconds = seconds
        self.seen = seen
    }
}

/// Records every element of an async stream and lets a test wait, with a bound, for the first
/// one that matches — including ones that arrived before the wait began.
public actor EventRecorder<Event: Sendable> {
    public private(set) var events: [Event] = []
    private var consumed = 0
    private var waiters: [(id: Int, match: @Sendable (Event) -> Bool, continuation: CheckedContinuation<Event?, Never>)] = []
    private var nextWaiter = 0

    public init<S: AsyncSequence & Sendable>(_ stream: S) where S.Element == Event {
        Task { [weak self] in
            do {
                for try await event in stream { await self?.append(event) }
            } catch {}
        }
    }

    private func append(_ event: Event) {
        events.append(event)
        if let index = waiters.firstIndex(where: { $0.match(event) }) {
            let waiter = waiters.remove(at: index)
            consumed = events.count
            waiter.continuation.resume(returning: event)
        }
    }

    /// The first event after the last one a wait returned that matches `match`.
    public func next(_ what: String, within seconds: Double = 10, where match: @escaping @Sendable (Event) -> Bool) async throws -> Event {
        if let index = events[consumed...].firstIndex(where: match) {
            consumed = index + 1
            return events[index]
        }
        consumed = events.count
        let id = nextWaiter
        nextWaiter += 1
        let timer = Task { [weak self] in
            try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            await self?.expire(id)
        }
        let result = await withCheckedContinuation { continuation in
            waiters.append((id, match, continuation))
        }
        timer.cancel()
        guard let result else { throw WaitTimedOut(what: what, seconds: seconds, seen: "\(events.suffix(8))") }
        return result
    }

    private func expire(_ id: Int) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(returning: nil)
    }

    public func all() -> [Event] { events }
}

/// What `extract` finds in `subject`: an enum case's associated value for `try #require`, so a
/// test whose pattern stops matching fails instead of returning early, e.g.
/// `let offer = try #require(matching(event) { if case .incomingCall(let offer) = $0 { offer } else { nil } })`.
public func matching<Subject, Value>(_ subject: Subject, _ extract: (Subject) -> Value?) -> Value? {
    extract(subject)
}
