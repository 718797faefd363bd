/// Requests this side sent and still waits for, each with its own deadline.
///
/// Time is passed in rather than read, so the dialect state machines stay deterministic and
/// the replay tests need no clock.
public struct PendingRequests<Context: Sendable>: Sendable {
    public struct Entry: Sendable {
        public let method: String
        public let deadline: Double
        public let timeout: Duration
        public let context: Context
    }

    private var entries: [JSONRPCID: Entry] = [:]

    public init() {}

    public mutating func add(_ id: JSONRPCID, method: String, now: Double, timeout: Duration, context: Context) {
        entries[id] = Entry(method: method, deadline: now + timeout.inSeconds, timeout: timeout, context: context)
    }

    /// Removes and returns the request a response answers, or nil for an unknown id.
    public mutating func complete(_ id: JSONRPCID) -> Entry? { entries.removeValue(forKey: id) }

    /// Removes and returns every request whose deadline has passed.
    public mutating func expire(now: Double) -> [(JSONRPCID, Entry)] {
        let expired = entries.filter { $0.value.deadline <= now }
        for (id, _) in expired { entries[id] = nil }
        return expired.sorted { $0.value.deadline < $1.value.deadline }.map { ($0.key, $0.value) }
    }

    public mutating func removeAll() -> [(JSONRPCID, Entry)] {
        defer { entries.removeAll() }
        return entries.map { ($0.key, $0.value) }
    }

    public var nextDeadline: Double? { entries.values.map(\.deadline).min() }
    public var count: Int { entries.count }
    public func contains(_ id: JSONRPCID) -> Bool { entries[id] != nil }
}
