import Locking
/// Requests this side sent and still waits for, each with its own deadline.
///
/// Time is passed in rather than read, so the dialect state machines stay deterministic and
/// the replay tests need no clock.
package struct PendingRequests<Context: Sendable>: Sendable {
    package struct Entry: Sendable {
        package let method: String
        package let deadline: Double
        package let timeout: Duration
        package let context: Context
    }

    private var entries: [JSONRPCID: Entry] = [:]

    package init() {}

    package mutating func add(_ id: JSONRPCID, method: String, now: Double, timeout: Duration, context: Context) {
        entries[id] = Entry(method: method, deadline: now + timeout.inSeconds, timeout: timeout, context: context)
    }

    /// Removes and returns the request a response answers, or nil for an unknown id.
    package mutating func complete(_ id: JSONRPCID) -> Entry? { entries.removeValue(forKey: id) }

    /// Removes and returns every request whose deadline has passed.
    package mutating func expire(now: Double) -> [(JSONRPCID, Entry)] {
        let expired = entries.filter { $0.value.deadline <= now }
        for (id, _) in expired { entries[id] = nil }
        return expired.sorted { $0.value.deadline < $1.value.deadline }.map { ($0.key, $0.value) }
    }

    package mutating func removeAll() -> [(JSONRPCID, Entry)] {
        defer { entries.removeAll() }
        return entries.map { ($0.key, $0.value) }
    }

    package var nextDeadline: Double? { entries.values.map(\.deadline).min() }
    package var count: Int { entries.count }
    package func contains(_ id: JSONRPCID) -> Bool { entries[id] != nil }
}
