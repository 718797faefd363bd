import Foundation
import SDP
import Signaling
import TestSupport
import Testing

/// A Verto server on loopback that logs one client in and then misbehaves as each test says.
/// The client under test is a real `VertoClient`; every misdeed must end in a typed error or a
/// counted refusal, and the session (or, for a fatal frame, the process) must go on.
private struct HostileServer {
    let server: WebSocketServer
    let events: EventRecorder<WebSocketServerEvent>

    static func start() async throws -> HostileServer {
        let server = try await WebSocketServer.listen(WebSocketServerOptions(bindAddress: "127.0.0.1", port: 0))
        return HostileServer(server: server, events: EventRecorder(server.events))
    }

    var url: WebSocketURL { get throws { try WebSocketURL(parsing: "ws://127.0.0.1:\(server.port)") } }

    /// The next frame a client sent, as JSON.
    func nextFrame(_ what: String, within seconds: Double = 10, where match: @escaping @Sendable (JSONValue) -> Bool = { _ in true }) async throws -> JSONValue {
        let event = try await events.next(what, within: seconds) {
            guard case .peer(_, .text(let text)) = $0, let frame = try? JSONValue.parse(text) else { return false }
            return match(frame)
        }
        guard case .peer(_, .text(let text)) = event else { throw WaitTimedOut(what: what, seconds: seconds, seen: "") }
        return try JSONValue.parse(text)
    }

    /// Accepts a client, answers its login, and returns the client once it is ready.
    func loggedInClient() async throws -> (VertoClient, EventRecorder<VertoEvent>, WebSocketPeer) {
        var configuration = VertoConfiguration(credentials: .password(login: "alice", password: "secret"))
        configuration.readiness = .loggedIn
        let client = VertoClient(url: try url, configuration: configuration)
        let clientEvents = EventRecorder(client.events)
        let connecting = Task { try await client.connect() }
        let accepted = try await events.next("a connection") { if case .accepted = $0 { true } else { false } }
        guard case .accepted(let peer) = accepted else { throw WaitTimedOut(what: "accept", seconds: 0, seen: "") }
        let login = try await nextFrame("the login") { $0["method"] == "login" }
        let id: JSONRPCID = login["id"]?.intValue.map { .number($0) } ?? .string(login["id"]?.stringValue ?? "")
        try server.send(JSONRPCMessage.resultFrame(id: id, result: ["message": "logged in", "sessid": login["params"]?["sessid"] ?? .null]).serialized, to: peer)
        try await connecting.value
        return (client, clientEvents, peer)
    }

    static func invite(_ callID: String, sdp: String = SDPText.small, id: Int) -> String {
        JSONRPCMessage.requestFrame(id: .number(id), method: "telnyx_rtc.invite", params: [
            "callID": .string(callID), "sdp": .string(sdp), "caller_id_number": "+15550000",
        ]).serialized
    }
}

private enum SDPText {
    static let head = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"
    static let audio = "m=audio 9 UDP/TLS/RTP/SAVPF 0\r\nc=IN IP4 127.0.0.1\r\na=rtpmap:0 PCMU/8000\r\n"
    static let small = head + audio
}

@Suite(.serialized) struct HostileServerTests {
    @Test func garbageFramesAreTypedErrorsAndTheSessionGoesOn() async throws {
        let hostile = try await HostileServer.start()
        defer { hostile.server.stop() }
        let (client, events, peer) = try await hostile.loggedInClient()
        let garbage = [
            "this is not json",
            String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000),
            String(repeating: "{\"a\":", count: 10_000) + "1" + String(repeating: "}", count: 10_000),
            "{\"jsonrpc\":\"2.0\"",
            "42",
            "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"telnyx_rtc.invite\",\"params\":{}}",
        ]
        for text in garbage { try hostile.server.send(text, to: peer) }
        for index in 0..<5 {
            let error = try await events.next("malformed frame \(index + 1)") { if case .error(.malformedFrame) = $0 { true } else { false } }
            guard case .error(let signalling) = error else { continue }
            #expect(signalling.code == "malformed-frame")
        }
        // The invite without params is answered with a JSON-RPC error, not acknowledged.
        let refusal = try await hostile.nextFrame("the refusal of an invite without a call") { $0["id"] == 7 }
        #expect(refusal["error"]?["code"]?.intValue != nil)

        try hostile.server.send(HostileServer.invite("after-garbage", id: 8), to: peer)
        _ = try await events.next("the invite after the garbage") { if case .incomingCall(let offer) = $0 { offer.callID == "after-garbage" } else { false } }
        #expect(await client.phase == .ready)
        await client.disconnect()
    }

    /// JSON-RPC 2.0 §5: an error about a frame whose id could not be read carries `"id": null`.
    /// The switch sends such errors; the reader took them for malformed (found by SwitchFuzz,
    /// fixtures/fuzz/SwitchFuzz/crash-error-with-null-id).
    @Test func anErrorWithANullIDIsAnErrorNotAMalformedFrame() throws {
        let text = #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#
        let frame = try JSONValue.parse(text)
        let error = JSONRPCErrorObject(code: -32700, message: "Parse error", details: frame["error"])
        #expect(try JSONRPCMessage.parse(text) == .errorWithoutID(error, frame: frame))
        #expect(throws: JSONRPCFrameError.self) { try JSONRPCMessage.parse(#"{"jsonrpc":"2.0","id":null,"result":{}}"#) }
    }

    @Test func aTwoMebibyteFrameClosesTheSocketWithATypedReason() async throws {
        let hostile = try await HostileServer.start()
        defer { hostile.server.stop() }
        let (client, events, peer) = try await hostile.loggedInClient()
        try hostile.server.send("\"" + String(repeating: "x", count: 2 << 20) + "\"", to: peer)
        let closed = try await events.next("the socket closing") { if case .socketClosed = $0 { true } else { false } }
        guard case .socketClosed(let closure) = closed else { return }
        #expect(closure.code == WebSocketCloseCode.messageTooBig)
        // The client can log in again on a fresh socket.
        let again = try await HostileServer.start()
        defer { again.server.stop() }
        _ = try await again.loggedInClient()
        await client.disconnect()
    }

    @Test func oversizeSDPsFromTheServerGetTypedParseErrors() async throws {
        let hostile = try await HostileServer.start()
        defer { hostile.server.stop() }
        let (client, events, peer) = try await hostile.loggedInClient()
        let manySections = SDPText.head + String(repeating: SDPText.audio, count: 1_000)
        let candidates = (0..<10_000).map { "a=candidate:\($0) 1 udp 2122260223 127.0.0.1 \(10_000 + $0 % 50_000) typ host\r\n" }.joined()
        let manyCandidates = SDPText.small + candidates
        try hostile.server.send(HostileServer.invite("many-sections", sdp: manySections, id: 1), to: peer)
        try hostile.server.send(HostileServer.invite("many-candidates", sdp: manyCandidates, id: 2), to: peer)
        var offers: [String: String] = [:]
        for _ in 0..<2 {
            let event = try await events.next("an oversize offer") { if case .incomingCall = $0 { true } else { false } }
            guard case .incomingCall(let offer) = event else { continue }
            offers[offer.callID] = offer.sdp
        }
        let sections = #expect(throws: SDPParseError.self) { try SDPParser().parse(try #require(offers["many-sections"])) }
        #expect(sections?.kind == .tooManyMediaSections)
        let candidateError = #expect(throws: SDPParseError.self) { try SDPParser().parse(try #require(offers["many-candidates"])) }
        #expect(candidateError?.kind == .documentTooLarge)
        // Under a document limit that lets it through, the attribute cap still holds.
        let roomy = SDPParser(limits: SDPLimits(maxDocumentBytes: 4 << 20))
        let attributes = #expect(throws: SDPParseError.self) { try roomy.parse(try #require(offers["many-candidates"])) }
        #expect(attributes?.kind == .tooManyAttributes)
        #expect(await client.phase == .ready)
        await client.disconnect()
    }

    @Test func anInviteFloodIsAcknowledgedOneForOneAndTheSessionStaysLive() async throws {
        let hostile = try await HostileServer.start()
        defer { hostile.server.stop() }
        let (client, events, peer) = try await hostile.loggedInClient()
        let count = 1_000
        let started = ContinuousClock.now
        for index in 0..<count {
            try hostile.server.send(HostileServer.invite("flood-\(index)", id: 1_000 + index), to: peer)
            // About 1,000 a second: a short pause every 100 invites.
            if index % 100 == 99 { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(ContinuousClock.now - started < .seconds(5))
        _ = try await events.next("the last invite", within: 30) { if case .incomingCall(let offer) = $0 { offer.callID == "flood-\(count - 1)" } else { false } }
        let offered = await events.all().filter { if case .incomingCall = $0 { true } else { false } }.count
        #expect(offered == count)
        // Every invite is acknowledged exactly once, and a ping after the flood is answered (with
        // a ping of the client's own, as the JS SDK answers one).
        try hostile.server.send(JSONRPCMessage.requestFrame(id: .number(5), method: "telnyx_rtc.ping", params: [:]).serialized, to: peer)
        _ = try await hostile.nextFrame("the answer to the ping after the flood", within: 30) { $0["method"] == "telnyx_rtc.ping" }
        let acknowledged = await hostile.events.all().filter {
            guard case .peer(_, .text(let text)) = $0, let id = (try? JSONValue.parse(text))?["id"]?.intValue else { return false }
            return (1_000..<(1_000 + count)).contains(id)
        }.count
        #expect(acknowledged == count)
        #expect(await client.phase == .ready)
        await client.disconnect()
    }

    @Test func answersForUnknownCallsAndAByeBeforeTheAnswerAreReportedNotFatal() async throws {
        let hostile = try await HostileServer.start()
        defer { hostile.server.stop() }
        let (client, events, peer) = try await hostile.loggedInClient()
        try hostile.server.send(JSONRPCMessage.requestFrame(id: .number(1), method: "telnyx_rtc.answer", params: ["callID": "no-such-call", "sdp": .string(SDPText.small)]).serialized, to: peer)
        try hostile.server.send(HostileServer.invite("short-lived", id: 2), to: peer)
        try hostile.server.send(JSONRPCMessage.requestFrame(id: .number(3), method: "telnyx_rtc.bye", params: ["callID": "short-lived", "cause": "NORMAL_CLEARING", "causeCode": 16]).serialized, to: peer)
        // The signalling layer reports each; the call layer (Parley's VoiceClient) drops the
        // answer for a call it does not have and ends the offered call.
        _ = try await events.next("the stray answer") { if case .answered(let progress) = $0 { progress.callID == "no-such-call" } else { false } }
        _ = try await events.next("the offer") { if case .incomingCall(let offer) = $0 { offer.callID == "short-lived" } else { false } }
        _ = try await events.next("the bye before any answer") { if case .remoteHangup(let callID, _) = $0 { callID == "short-lived" } else { false } }
        for id in 1...3 { _ = try await hostile.nextFrame("the acknowledgement of \(id)") { $0["id"]?.intValue == id } }
        #expect(await client.phase == .ready)
        await client.disconnect()
    }

    /// A server gone silent (as on a socket whose local address was removed): a probe that gets
    /// no answer gives the socket up, and a request in flight fails then, not at its own 10 s
    /// timeout, so the owner can reopen the socket at once.
    @Test func aSocketThatAnswersNoProbeIsAbandonedAndItsRequestInFlightFailsAtOnce() async throws {
        let hostile = try await HostileServer.start()
        defer { hostile.server.stop() }
        let (client, events, _) = try await hostile.loggedInClient()
        let inFlight = Task { () async -> SignalingError? in
            do throws(SignalingError) {
                _ = try await client.updateMedia(callID: "silent", offer: SDPText.small)
                return nil
            } catch {
                return error
            }
        }
        _ = try await hostile.nextFrame("the updateMedia") { $0["params"]?["action"] == "updateMedia" }
        let started = ContinuousClock.now
        #expect(await client.abandonIfSilent(timeout: .milliseconds(300)), "given up")
        let failure = try #require(await inFlight.value, "the request in flight fails")
        guard case .socketClosed = failure else {
            Issue.record("the request failed with \(failure), not with the socket's close")
            return
        }
        #expect(ContinuousClock.now - started < .seconds(5), "well before the request's own 10 s timeout")
        _ = try await events.next("the socket closed") { if case .socketClosed = $0 { true } else { false } }
        #expect(await client.socketEndpoints == nil)
        #expect(await client.phase == .disconnected)
    }
}
