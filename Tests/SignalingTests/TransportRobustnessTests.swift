import Foundation
import Signaling
import Switch
import TestSupport
import Testing

@Suite(.leakChecked) struct TransportRobustnessTests {
    /// A raw socket to the switch and what comes back on it.
    private func rawSocket(_ harness: SwitchHarness) -> (WebSocketConnection, EventRecorder<WebSocketEvent>) {
        let socket = WebSocketConnection(url: harness.embedded.url)
        afterTest { socket.close() }
        return (socket, EventRecorder(socket.events))
    }

    private func nextText(_ events: EventRecorder<WebSocketEvent>) async throws -> JSONValue {
        let event = try await events.next("a text message") { if case .text = $0 { true } else { false } }
        guard case .text(let text) = event else { return .null }
        return try JSONValue.parse(text)
    }

    @Test func malformedFramesGetErrorAnswersAndTheConnectionStaysUp() async throws {
        let harness = try await SwitchHarness.start()
        afterTest { await harness.embedded.stop() }
        let (socket, events) = rawSocket(harness)
        _ = try await events.next("open") { if case .opened = $0 { true } else { false } }

        let garbage: [(String, Int)] = [
            ("this is not json", -32700),
            ("{\"id\":\"1\",\"method\":\"login\"", -32700),
            ("[1,2,3]", -32600),
            ("{\"jsonrpc\":\"1.0\",\"id\":\"2\",\"method\":\"login\"}", -32600),
            ("{\"jsonrpc\":\"2.0\",\"id\":{\"x\":1},\"method\":\"login\"}", -32600),
            (String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000), -32700),
            ("{\"jsonrpc\":\"2.0\",\"id\":\"3\",\"method\":\"telnyx_rtc.invite\",\"params\":{}}", -32000),
            ("{\"jsonrpc\":\"2.0\",\"id\":\"4\",\"method\":\"no.such.method\"}", -32000),
        ]
        for (text, code) in garbage {
            try socket.send(text)
            let answer = try await nextText(events)
            #expect(answer["error"]?["code"]?.intValue == code, "answer to \(text.prefix(40)): \(answer.serialized)")
        }
        try socket.send(#"{"jsonrpc":"2.0","id":"5","method":"login","params":{"login":"alice","passwd":"alice-secret"}}"#)
        let login = try await nextText(events)
        #expect(login["result"]?["message"] == "logged in")
        let unknown = #"{"jsonrpc":"2.0","id":"6","method":"telnyx_rtc.frobnicate","params":{}}"#
        try socket.send(unknown)
        var answer = try await nextText(events)
        while answer["method"] != nil { answer = try await nextText(events) }  // skip clientReady
        #expect(answer["error"]?["code"]?.intValue == -32601)
        socket.close()
    }

    /// The switch shutting down closes every socket with a close frame 1001 (going away), a
    /// logged-in one and one that never logged in.
    @Test func aSwitchShuttingDownClosesEverySocketWith1001() async throws {
        let harness = try await SwitchHarness.start()
        let (socket, events) = rawSocket(harness)
        let (idle, idleEvents) = rawSocket(harness)
        _ = try await events.next("open") { if case .opened = $0 { true } else { false } }
        _ = try await idleEvents.next("open") { if case .opened = $0 { true } else { false } }
        try socket.send(#"{"jsonrpc":"2.0","id":"1","method":"login","params":{"login":"alice","passwd":"alice-secret"}}"#)
        #expect(try await nextText(events)["result"]?["message"] == "logged in")
        await harness.embedded.shutDown()
        for recorder in [events, idleEvents] {
            let closed = try await recorder.next("close") { if case .closed = $0 { true } else { false } }
            let closure = try #require(matching(closed) { if case .closed(let closure) = $0 { closure } else { nil } })
            #expect(closure.code == WebSocketCloseCode.goingAway, "\(closure)")
        }
        _ = idle
    }

    @Test func anOversizeMessageIsRefusedWith1009AndTheServerGoesOn() async throws {
        let harness = try await SwitchHarness.start()
        afterTest { await harness.embedded.stop() }
        let (socket, events) = rawSocket(harness)
        _ = try await events.next("open") { if case .opened = $0 { true } else { false } }
        try socket.send("\"" + String(repeating: "x", count: (1 << 20) + 10) + "\"")
        let closed = try await events.next("close") { if case .closed = $0 { true } else { false } }
        let closure = try #require(matching(closed) { if case .closed(let closure) = $0 { closure } else { nil } })
        #expect(closure.code == WebSocketCloseCode.messageTooBig)
        // Another client is served as before.
        _ = try await harness.readyClient("alice", "alice-secret")
    }

    @Test func aClientRefusesAnOversizeMessageFromTheServer() async throws {
        let server = try await WebSocketServer.listen(WebSocketServerOptions(bindAddress: "127.0.0.1", port: 0))
        defer { server.stop() }
        let serverEvents = EventRecorder(server.events)
        var options = WebSocketOptions()
        options.maximumMessageSize = 4096
        let client = WebSocketConnection(url: try WebSocketURL(parsing: "ws://127.0.0.1:\(server.port)"), options: options)
        let clientEvents = EventRecorder(client.events)
        let accepted = try await serverEvents.next("accept") { if case .accepted = $0 { true } else { false } }
        let peer = try #require(matching(accepted) { if case .accepted(let peer) = $0 { peer } else { nil } })
        try server.send("small", to: peer)
        try server.send(String(repeating: "y", count: 5000), to: peer)
        #expect(try await clientEvents.next("small") { $0 == .text("small") } == .text("small"))
        _ = try await clientEvents.next("refusal") { $0 == .refused(.tooLarge(limit: 4096)) }
        let closed = try await clientEvents.next("close") { if case .closed = $0 { true } else { false } }
        let closure = try #require(matching(closed) { if case .closed(let closure) = $0 { closure } else { nil } })
        #expect(closure.code == WebSocketCloseCode.messageTooBig)
    }

    @Test func largeMessagesUnderTheCapArriveWhole() async throws {
        let server = try await WebSocketServer.listen(WebSocketServerOptions(bindAddress: "127.0.0.1", port: 0))
        defer { server.stop() }
        let serverEvents = EventRecorder(server.events)
        let client = WebSocketConnection(url: try WebSocketURL(parsing: "ws://127.0.0.1:\(server.port)"))
        let clientEvents = EventRecorder(client.events)
        let accepted = try await serverEvents.next("accept") { if case .accepted = $0 { true } else { false } }
        let peer = try #require(matching(accepted) { if case .accepted(let peer) = $0 { peer } else { nil } })
        // Larger than libwebsockets' 64 KiB receive buffer, so it arrives in pieces both ways.
        let big = String((0..<700_000).map { _ in "abcdefghij".randomElement()! })
        try server.send(big, to: peer)
        try client.send(big)
        #expect(try await clientEvents.next("big message") { if case .text = $0 { true } else { false } } == .text(big))
        let echoed = try await serverEvents.next("big message at the server") { if case .peer(_, .text) = $0 { true } else { false } }
        let text = try #require(matching(echoed) { if case .peer(_, .text(let text)) = $0 { text } else { nil } })
        #expect(text == big)
    }

    @Test(arguments: [1, 3, 17])
    func fragmentedMessagesAreReassembled(fragments: Int) async throws {
        let harness = try await SwitchHarness.start()
        afterTest { await harness.embedded.stop() }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Support/ws_fragments.py").path
        let output = try await run("/usr/bin/env", ["python3", script, String(harness.embedded.port), "alice", "alice-secret", String(fragments)])
        let answer = try JSONValue.parse(output.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(answer["id"] == "fragmented-1")
        #expect(answer["result"]?["message"] == "logged in")
    }

    @Test func sendingOnAClosedConnectionDoesNotCrashAndQueueLimitsHold() async throws {
        var options = WebSocketOptions()
        options.maximumQueuedBytes = 1000
        let socket = WebSocketConnection(url: try WebSocketURL(parsing: "ws://127.0.0.1:\(try unusedLoopbackPort())"), options: options)
        // Nothing is open yet, so everything waits in the queue until the limit refuses more.
        try socket.send(String(repeating: "a", count: 600))
        #expect(throws: WebSocketError.self) { try socket.send(String(repeating: "b", count: 600)) }
        let events = EventRecorder(socket.events)
        _ = try await events.next("connect failure") { if case .closed = $0 { true } else { false } }
        try? socket.send("after close")
        socket.close()
    }
}
