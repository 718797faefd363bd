import Foundation
import Locking
import Parley
import Signaling
import TestSupport
import Testing

/// A real `VoiceClient` against a server on loopback that answers as Telnyx's does (the frames of
/// docs/verto-protocol.md §2-5): what Parley sends where the SDKs' own frames decide — its
/// identity, no ringing_ack, hold by `modify` alone, a DTMF `info` per digit, cause 17 for a call
/// given up while it rings.
@Suite(.leakChecked, .serialized) struct SDKWireTests {
    /// Logs a client in (login, clientReady, gatewayState REGED) and answers its requests as
    /// Telnyx's server does; every frame the client sends is kept.
    final class TelnyxLikeServer: Sendable {
        let server: WebSocketServer
        let frames: EventRecorder<JSONValue>
        /// The one client's connection, once accepted.
        final class PeerSlot: Sendable {
            let value = Lock<WebSocketPeer?>(nil)
        }
        private let peer = PeerSlot()
        private let pump: Task<Void, Never>

        init() async throws {
            let server = try await WebSocketServer.listen(WebSocketServerOptions(bindAddress: "127.0.0.1", port: 0))
            self.server = server
            let (stream, sink) = AsyncStream.makeStream(of: JSONValue.self)
            frames = EventRecorder(stream)
            let peer = self.peer
            pump = Task {
                for await event in server.events {
                    switch event {
                    case .accepted(let accepted): peer.value.withLock { $0 = accepted }
                    case .peer(_, .text(let text)):
                        guard let frame = try? JSONValue.parse(text) else { continue }
                        sink.yield(frame)
                        guard let to = peer.value.withLock({ $0 }) else { continue }
                        for reply in Self.replies(to: frame) { try? server.send(reply.serialized, to: to) }
                    default: break
                    }
                }
            }
        }

        deinit {
            pump.cancel()
            server.stop()
        }

        var url: WebSocketURL {
            get throws { try WebSocketURL(parsing: "ws://127.0.0.1:\(server.port)") }
        }

        /// What Telnyx answers (FreeSWITCH's shapes where the reference has no trace); an
        /// updateMedia is refused as by a server without it, so the client is never held up.
        static func replies(to frame: JSONValue) -> [JSONValue] {
            guard let method = frame["method"]?.stringValue, let id = frame["id"]?.stringValue else { return [] }
            let params = frame["params"] ?? .object([:])
            let callID = params["dialogParams"]?["callID"] ?? .null
            func result(_ result: JSONValue) -> JSONValue { ["jsonrpc": "2.0", "id": .string(id), "result": result] }
            switch method {
            case "login":
                return [result(["message": "logged in", "sessid": params["sessid"] ?? .null]),
                        ["jsonrpc": "2.0", "id": 138417, "method": "telnyx_rtc.clientReady", "params": ["reattached_sessions": []]]]
            case "telnyx_rtc.gatewayState": return [result(["params": ["state": "REGED"]])]
            case "telnyx_rtc.invite": return [result(["callID": callID, "message": "CALL CREATED"])]
            case "telnyx_rtc.info": return [result(["message": "SENT"])]
            case "telnyx_rtc.bye": return [result(["callID": callID, "message": "CALL ENDED"])]
            case "telnyx_rtc.ping": return [result(["message": "PONG"])]
            case "telnyx_rtc.modify" where params["action"] == "updateMedia":
                return [["jsonrpc": "2.0", "id": .string(id), "error": ["code": -32002, "message": "action not supported: updateMedia"]]]
            case "telnyx_rtc.modify":
                let holding = params["action"] == "hold"
                return [result(["callID": callID, "action": params["action"] ?? .null, "holdState": holding ? "held" : "active"])]
            default: return [result(["message": "OK"])]
            }
        }

        func send(_ method: String, id: Int, _ params: JSONValue) throws {
            let to = try #require(peer.value.withLock { $0 })
            try server.send(JSONRPCMessage.requestFrame(id: .number(id), method: "telnyx_rtc." + method, params: params).serialized, to: to)
        }

        func next(_ method: String, _ match: @escaping @Sendable (JSONValue) -> Bool = { _ in true }) async throws -> JSONValue {
            try await frames.next(method) { $0["method"]?.stringValue == method && match($0) }
        }

        func sent(_ method: String) async -> [JSONValue] {
            await frames.all().filter { $0["method"]?.stringValue == method }
        }
    }

    static func readyClient(_ server: TelnyxLikeServer, dtmf: DTMFMode = .rfc4733) async throws -> VoiceClient {
        var configuration = try CallThroughSwitchTests.configuration("alice", at: try server.url, play: "tone:440")
        configuration.reconnection.isEnabled = false
        configuration.media.dtmfMode = dtmf
        let client = VoiceClient(configuration: configuration)
        try await client.connect()
        return client
    }

    static let placeholderOffer = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 0\r\nc=IN IP4 127.0.0.1\r\na=rtpmap:0 PCMU/8000\r\n"

    @Test func theLoginNamesParleyAndAnIncomingInviteGetsNoRingingAck() async throws {
        let server = try await TelnyxLikeServer()
        let client = try await Self.readyClient(server)
        let login = try await server.next("login")
        #expect(login["params"]?["User-Agent"]?.stringValue == "Parley-\(ParleyVersion.version)")
        #expect(login["params"]?["reconnection"] == nil)

        let events = EventRecorder(client.events)
        try server.send("invite", id: 4402, ["callID": "cd35e65f-a507-4bd2-8d21-80f36d134a2e", "sdp": .string(Self.placeholderOffer),
                                             "caller_id_name": "Extension 1004", "caller_id_number": "1004"])
        let event = try await events.next("the incoming call") { if case .incomingCall = $0 { true } else { false } }
        let incoming = try #require(matching(event) { if case .incomingCall(let incoming) = $0 { incoming } else { nil } })
        try await incoming.reject()
        let bye = try await server.next("telnyx_rtc.bye")
        #expect(bye["params"]?["causeCode"] == 17)
        // The invite was acknowledged as the JS SDK does, and nothing else went out for it.
        #expect(await server.frames.all().contains { $0["id"] == 4402 && $0["result"]?["method"] == "telnyx_rtc.invite" })
        #expect(await server.sent("telnyx_rtc.ringing_ack").isEmpty)
        await client.disconnect()
    }

    @Test func aCallerWhoGivesUpWhileItRingsSendsUserBusy() async throws {
        let server = try await TelnyxLikeServer()
        let client = try await Self.readyClient(server)
        let call = try await client.dial("bob")
        try server.send("ringing", id: 254271, ["callID": .string(call.id), "caller_id_name": "alice", "caller_id_number": "alice"])
        try await waitUntil("the call ringing", within: 5) { await call.state == .ringing }
        await call.hangup()
        let bye = try await server.next("telnyx_rtc.bye")
        #expect(bye["params"]?["cause"] == "USER_BUSY")
        #expect(bye["params"]?["causeCode"] == 17)
        // The call's own ending says what went out, and who ended it.
        #expect(await call.terminationReason == TerminationReason(cause: "USER_BUSY", causeCode: 17, localStatus: .endedByLocalUser))
        await client.disconnect()
    }

    /// An answered call (the far end a real media leg, which negotiates telephone-event): hold
    /// and unhold are the `modify` alone, digits go one per `info` in `info` and `both` modes and
    /// in none in `rfc4733` mode, and hanging up is NORMAL_CLEARING.
    @Test(arguments: [(DTMFMode.info, ["1", "2", "#"]), (.both, ["1", "2", "#"]), (.rfc4733, [])])
    func anAnsweredCallHoldsByModifyAloneAndSendsDigitsAsTheModeSays(mode: DTMFMode, infos: [String]) async throws {
        let server = try await TelnyxLikeServer()
        let client = try await Self.readyClient(server, dtmf: mode)
        let farEnd = try MediaLeg(role: .controlled, options: InteropMedia.options(interface: "lo", codec: "opus", tone: 440, record: nil, vanilla: true),
                                  logger: InteropMedia.logger)
        afterTest { await farEnd.stop() }
        let call = try await client.dial("bob")
        let invite = try await server.next("telnyx_rtc.invite")
        let answer = try await farEnd.answer(try #require(invite["params"]?["sdp"]?.stringValue))
        try server.send("answer", id: 254280, ["callID": .string(call.id), "sdp": .string(answer)])
        try await waitUntil("the call active", within: 5) { await call.state == .active }

        try await call.hold()
        #expect(await call.state == .held)
        try await call.unhold()
        #expect(await call.state == .active)
        let holds = await server.sent("telnyx_rtc.modify").compactMap { $0["params"]?["action"]?.stringValue }
        #expect(holds == ["hold", "unhold"], "a hold re-offer went to the server: \(holds)")

        try await call.sendDTMF("12#")
        let digits = await server.sent("telnyx_rtc.info").compactMap { $0["params"]?["dtmf"]?.stringValue }
        #expect(digits == infos)

        await call.hangup()
        let bye = try await server.next("telnyx_rtc.bye")
        #expect(bye["params"]?["cause"] == "NORMAL_CLEARING")
        #expect(bye["params"]?["causeCode"] == 16)
        await client.disconnect()
    }
}
