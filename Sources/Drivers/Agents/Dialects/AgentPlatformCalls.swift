import Locking
import Parley

/// The calls a platform dialect's bots may name over the emulated REST API
/// (AgentPlatformAPI.swift): the platform's call id → the call, while the call streams.
final class AgentPlatformCalls: Sendable {
    static let shared = AgentPlatformCalls()
    private let calls = Lock([String: Call]())

    func register(_ id: String, call: Call) { calls.withLock { $0[id] = call } }
    func remove(_ id: String) { calls.withLock { $0[id] = nil } }
    func call(_ id: String) -> Call? { calls.withLock { $0[id] } }
}
