import Foundation
import Signaling
import TestSupport
import Testing

/// A server that accepts TCP and never answers the upgrade: each connection ends, timed out,
/// within its connect timeout, never hangs and never touches a freed libwebsockets handle.
@Suite(.tags(.slow), .notInQuickCheck) struct ConnectTimeoutTests {
    private func closure(of connection: WebSocketConnection, within seconds: Double) async throws -> WebSocketClosure {
        let events = EventRecorder(connection.events)
        let event = try await events.next("the close", within: seconds) { if case .closed = $0 { true } else { false } }
        guard case .closed(let closure) = event else { throw WaitTimedOut(what: "a close", seconds: seconds, seen: "\(event)") }
        return closure
    }

    @Test func aShortConnectTimeoutEndsASilentHandshake() async throws {
        let silent = try SilentListener()
        var options = WebSocketOptions()
        options.connectTimeout = .milliseconds(500)
        let started = ContinuousClock.now
        let connection = WebSocketConnection(url: try WebSocketURL(parsing: "ws://127.0.0.1:\(silent.port)"), options: options)
        let closure = try await closure(of: connection, within: 4)
        #expect(closure.error == .connectTimedOut(after: .milliseconds(500)))
        #expect(ContinuousClock.now - started < .seconds(3))
    }

    /// The default 5 s timeout used to race the library's own 5 s handshake timeout: the library
    /// freed the connection unannounced, and the timeout then hung or crashed on the freed handle.
    @Test func theDefaultTimeoutHoldsForManySilentHandshakesAtOnce() async throws {
        let silent = try SilentListener()
        let url = try WebSocketURL(parsing: "ws://127.0.0.1:\(silent.port)")
        let connections = (0..<16).map { _ in WebSocketConnection(url: url) }
        try await withThrowingTaskGroup(of: WebSocketClosure.self) { group in
            for connection in connections {
                group.addTask { try await closure(of: connection, within: 9) }
            }
            for try await closure in group {
                #expect(closure.error == .connectTimedOut(after: .seconds(5)))
            }
        }
    }
}
