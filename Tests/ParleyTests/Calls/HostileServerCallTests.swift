import Foundation
import Parley
import Signaling
import TestSupport
import Testing

/// A Verto server on loopback that logs a real `VoiceClient` in, answers nothing else it is not
/// told to (not even the ringing acknowledgements), floods invites, sends answers for calls that
/// do not exist and a bye before any answer. The client must refuse what it cannot hold, end
/// the calls it is told to end, and keep handling events without waiting on the server.
@Suite(.serialized, .tags(.slow), .notInQuickCheck) struct HostileServerCallTests {
    let server: WebSocketServer
    let events: EventRecorder<WebSocketServerEvent>

    init() async throws {
        server = try await WebSocketServer.listen(WebSocketServerOptions(bindAddress: "127.0.0.1", port: 0))
        events = EventRecorder(server.events)
    }

    static let sdp = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 0\r\nc=IN IP4 127.0.0.1\r\na=rtpmap:0 PCMU/8000\r\n"

    func frames() async -> [JSONValue] {
        await events.all().compactMap { if case .peer(_, .text(let text)) = $0 { try? JSONValue.parse(text) } else { nil } }
    }

    func nextFrame(_ what: String, where match: @escaping @Sendable (JSONValue) -> Bool) async throws -> JSONValue {
        let event = try await events.next(what) {
            guard case .peer(_, .text(let text)) = $0, let frame = try? JSONValue.parse(text) else { return false }
            return match(frame)
        }
        guard case .peer(_, .text(let text)) = event else { throw WaitTimedOut(what: what, seconds: 0, seen: "") }
        return try JSONValue.parse(text)
    }

    static func id(of frame: JSONValue) -> JSONRPCID {
        frame["id"]?.intValue.map { .number($0) } ?? .string(frame["id"]?.stringValue ?? "")
    }

    /// A logged-in client, and the server's side of its socket.
    func loggedInClient(_ adjust: (inout VoiceClientConfiguration) -> Void = { _ in }) async throws -> (VoiceClient, WebSocketPeer) {
        let url = try WebSocketURL(parsing: "ws://127.0.0.1:\(server.port)")
        var configuration = try CallThroughSwitchTests.configuration("alice", at: url, play: "tone:440")
        configuration.readiness = .loggedIn
        configuration.reconnection.isEnabled = false
        adjust(&configuration)
        let client = VoiceClient(configuration: configuration)
        let connecting = Task { try await client.connect() }
        let accepted = try await events.next("a connection") { if case .accepted = $0 { true } else { false } }
        guard case .accepted(let peer) = accepted else { throw WaitTimedOut(what: "accept", seconds: 0, seen: "") }
        let login = try await nextFrame("the login") { $0["method"] == "login" }
        try server.send(JSONRPCMessage.resultFrame(id: Self.id(of: login), result: ["message": "logged in", "sessid": login["params"]?["sessid"] ?? .null]).serialized, to: peer)
        try await connecting.value
        return (client, peer)
    }

    func send(_ method: String, id: Int, _ params: JSONValue, to peer: WebSocketPeer) throws {
        try server.send(JSONRPCMessage.requestFrame(id: .number(id), method: "telnyx_rtc." + method, params: params).serialized, to: peer)
    }

    @Test func anInviteFloodIsCappedAndEventsAreNotHeldUpByUnansweredRequests() async throws {
        defer { server.stop() }
        let (client, peer) = try await loggedInClient { $0.maximumCalls = 20 }
        let clientEvents = EventRecorder(client.events)
        let flood = 300
        for index in 0..<flood {
            try send("invite", id: 10_000 + index, ["callID": .string("flood-\(index)"), "sdp": .string(Self.sdp), "caller_id_number": "+15550000"], to: peer)
        }
        // The server answers none of the ringing acknowledgements; a bye must still be handled
        // long before one request timeout (10 s) has passed.
        try send("bye", id: 1, ["callID": "flood-0", "cause": "NORMAL_CLEARING", "causeCode": 16], to: peer)
        try await waitUntil("flood-0 ended and the flood counted", within: 5) {
            let ids = await client.activeCalls.map(\.id)
            let refused = await client.refusedIncomingCalls
            return !ids.contains("flood-0") && refused == flood - 20
        }
        // Each refusal is reported, so `parley answer` can note and count it (docs/metrics.md).
        try await waitUntil("a refusedCall event for every refused invite", within: 5) {
            await clientEvents.all().filter { if case .refusedCall = $0 { true } else { false } }.count == flood - 20
        }
        #expect(await client.activeCalls.count == 19)
        // Each refused invite gets a USER_BUSY bye.
        try await waitUntil("a USER_BUSY bye for every refused invite", within: 10) {
            await frames().filter { $0["method"] == "telnyx_rtc.bye" && $0["params"]?["cause"] == "USER_BUSY" }.count == flood - 20
        }
        // Not disconnect(): it would hang up 19 calls with byes this server never answers.
    }

    @Test func aStrayAnswerIsIgnoredAndAByeBeforeTheAnswerEndsTheCall() async throws {
        defer { server.stop() }
        let (client, peer) = try await loggedInClient()
        let dialing = Task { try await client.dial("bob") }
        let invite = try await nextFrame("the invite") { $0["method"] == "telnyx_rtc.invite" }
        let callID = try #require(invite["params"]?["dialogParams"]?["callID"]?.stringValue)
        try server.send(JSONRPCMessage.resultFrame(id: Self.id(of: invite), result: ["message": "CALL CREATED", "callID": .string(callID)]).serialized, to: peer)
        let call = try await dialing.value
        #expect(call.id == callID)
        try send("answer", id: 2, ["callID": "no-such-call", "sdp": .string(Self.sdp)], to: peer)
        try send("bye", id: 3, ["callID": .string(call.id), "cause": "CALL_REJECTED", "causeCode": 21], to: peer)
        try await waitUntil("the call ended by the bye", within: 10) { await call.state.isDone }
        let reason = try #require(await call.terminationReason)
        #expect(reason.cause == "CALL_REJECTED")
        #expect(!reason.isNormal)
        // The client forgets an ended call after the call reports itself done, not at once.
        try await waitUntil("the client forgot the ended call", within: 10) { await client.activeCalls.isEmpty }
        await client.disconnect()
    }

    /// Trickled candidates go out without waiting for the server's results, which say nothing a
    /// call acts on: a server slow to answer them (this one never does) must hold up neither the
    /// next candidate nor the dial's return, each by a request timeout (10 s).
    @Test func aTrickledDialDoesNotWaitForTheCandidatesResults() async throws {
        defer { server.stop() }
        let (client, peer) = try await loggedInClient()
        let (returned, dialReturned) = AsyncStream.makeStream(of: String.self)
        let dialed = EventRecorder(returned)
        let dialing = Task {
            let call = try await client.dial("bob")
            dialReturned.yield(call.id)
        }
        defer { dialing.cancel() }
        let invite = try await nextFrame("the invite") { $0["method"] == "telnyx_rtc.invite" }
        let callID = try #require(invite["params"]?["dialogParams"]?["callID"]?.stringValue)
        try server.send(JSONRPCMessage.resultFrame(id: Self.id(of: invite), result: ["message": "CALL CREATED", "callID": .string(callID)]).serialized, to: peer)
        _ = try await nextFrame("the end of the candidates") { $0["method"] == "telnyx_rtc.endOfCandidates" && $0["params"]?["dialogParams"]?["callID"]?.stringValue == callID }
        #expect(await frames().contains { $0["method"] == "telnyx_rtc.candidate" })
        let id = try await dialed.next("the dial returned, its candidates unanswered", within: 3) { _ in true }
        #expect(id == callID)
    }

    /// Each call's events are handled on their own: one call waiting on the server (a transfer
    /// whose new invite this server never answers) must not hold up a bye for another call.
    @Test func oneCallWaitingOnTheServerDoesNotHoldUpAnotherCallsEvents() async throws {
        defer { server.stop() }
        let (client, peer) = try await loggedInClient()
        var calls: [Call] = []
        for destination in ["bob", "carol"] {
            let dialing = Task { try await client.dial(destination) }
            let invite = try await nextFrame("the invite to \(destination)") {
                $0["method"] == "telnyx_rtc.invite" && $0["params"]?["dialogParams"]?["destination_number"]?.stringValue == destination
            }
            let callID = try #require(invite["params"]?["dialogParams"]?["callID"]?.stringValue)
            try server.send(JSONRPCMessage.resultFrame(id: Self.id(of: invite), result: ["message": "CALL CREATED", "callID": .string(callID)]).serialized, to: peer)
            calls.append(try await dialing.value)
        }
        let (waiting, other) = (calls[0], calls[1])
        try send("modify", id: 4, ["callID": .string(waiting.id), "action": "transfer", "destination": "dave"], to: peer)
        _ = try await nextFrame("the transferred call's new invite") {
            $0["method"] == "telnyx_rtc.invite" && $0["params"]?["dialogParams"]?["destination_number"]?.stringValue == "dave"
        }
        try send("bye", id: 5, ["callID": .string(other.id), "cause": "NORMAL_CLEARING", "causeCode": 16], to: peer)
        try await waitUntil("the other call ended by its bye, well within a request timeout (10 s)", within: 3) { await other.state.isDone }
        #expect(!(await waiting.state.isDone))
    }
}
