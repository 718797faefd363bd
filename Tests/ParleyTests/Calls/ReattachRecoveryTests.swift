import Foundation
@testable import Parley
import Signaling
import TestSupport
import Testing

/// A call the server re-attaches after a re-login (docs/calls.md, "Reconnection"): the re-attach
/// recovers it, and nothing else renegotiates its media meanwhile; when our attach answer had to
/// restart ICE, an ICE restart both ways follows it. A Verto server on loopback, scripted here,
/// answers a real `VoiceClient`'s call with a far end that never sends media, drops the socket,
/// and re-offers the call when the client logs in again.
@Suite(.serialized) struct ReattachRecoveryTests {
    /// The loopback server of HostileServerCallTests and its helpers, scripted here.
    let scripted: HostileServerCallTests
    var server: WebSocketServer { scripted.server }

    init() async throws {
        scripted = try await HostileServerCallTests()
    }

    /// The far end's description: its ICE credentials and no candidates yet, so the call's ICE
    /// neither connects nor fails while the test runs.
    static func farEnd(ufrag: String, setup: String) -> String {
        ["v=0", "o=- 42 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0", "m=audio 9 UDP/TLS/RTP/SAVPF 111", "c=IN IP4 127.0.0.1",
         "a=ice-ufrag:\(ufrag)", "a=ice-pwd:\(ufrag)PasswordOfTheFarEnd",
         "a=fingerprint:sha-256 " + (0..<32).map { String(format: "%02X", $0 * 7 % 256) }.joined(separator: ":"),
         "a=setup:\(setup)", "a=mid:0", "a=sendrecv", "a=rtcp-mux", "a=rtpmap:111 opus/48000/2", ""].joined(separator: "\r\n")
    }

    func nextFrame(_ what: String, where match: @escaping @Sendable (JSONValue) -> Bool) async throws -> JSONValue {
        try await scripted.nextFrame(what, where: match)
    }

    func frames() async -> [JSONValue] { await scripted.frames() }

    func reply(to frame: JSONValue, _ result: JSONValue, on peer: WebSocketPeer) throws {
        try server.send(JSONRPCMessage.resultFrame(id: HostileServerCallTests.id(of: frame), result: result).serialized, to: peer)
    }

    func send(_ method: String, id: Int, _ params: JSONValue, to peer: WebSocketPeer) throws {
        try scripted.send(method, id: id, params, to: peer)
    }

    /// The `connection`-th connection accepted, and its login answered.
    func acceptLogin(_ connection: Int) async throws -> WebSocketPeer {
        var peers: [WebSocketPeer] = []
        try await waitUntil("connection \(connection)", within: 10) {
            peers = await scripted.events.all().compactMap { if case .accepted(let peer) = $0 { peer } else { nil } }
            return peers.count >= connection
        }
        let peer = peers[connection - 1]
        let logins = { await self.frames().filter { $0["method"] == "login" } }
        try await waitUntil("login \(connection)", within: 10) { await logins().count >= connection }
        let login = await logins()[connection - 1]
        try reply(to: login, ["message": "logged in", "sessid": login["params"]?["sessid"] ?? .null], on: peer)
        return peer
    }

    /// A client with an answered call whose far end sends nothing, and the server's side of its socket.
    func answeredCall() async throws -> (VoiceClient, Call, WebSocketPeer) {
        let url = try WebSocketURL(parsing: "ws://127.0.0.1:\(server.port)")
        var configuration = try CallThroughSwitchTests.configuration("alice", at: url, play: "tone:440")
        configuration.readiness = .loggedIn
        configuration.reconnection.watchesNetwork = false
        configuration.reconnection.initialDelay = .milliseconds(100)
        configuration.media.mediaTimeout = .seconds(60)
        let client = VoiceClient(configuration: configuration)
        let connecting = Task { try await client.connect() }
        let peer = try await acceptLogin(1)
        try await connecting.value
        let dialing = Task { try await client.dial("bob") }
        let invite = try await nextFrame("the invite") { $0["method"] == "telnyx_rtc.invite" }
        let callID = try #require(invite["params"]?["dialogParams"]?["callID"]?.stringValue)
        try reply(to: invite, ["message": "CALL CREATED", "callID": .string(callID)], on: peer)
        let call = try await dialing.value
        try send("answer", id: 1, ["callID": .string(callID), "sdp": .string(Self.farEnd(ufrag: "FarEndOne", setup: "active"))], to: peer)
        try await waitUntil("the call answered", within: 5) { await call.state == .active }
        return (client, call, peer)
    }

    /// The server drops the socket; the client reopens it, and logs in again once the test is
    /// ready (`beforeLogin` runs while the client waits for its login's answer).
    func dropAndAcceptRelogin(_ client: VoiceClient, _ call: Call, _ peer: WebSocketPeer, beforeLogin: () async -> Void) async throws -> WebSocketPeer {
        server.close(peer)
        try await waitUntil("the call reconnecting", within: 5) { await call.state == .reconnecting }
        try await waitUntil("the second login", within: 10) { await frames().filter { $0["method"] == "login" }.count >= 2 }
        await beforeLogin()
        return try await acceptLogin(2)
    }

    @Test func aRecoveryPassAfterTheReloginLeavesAReattachingCallToItsReattach() async throws {
        defer { server.stop() }
        let (client, call, peer) = try await answeredCall()
        // A trigger queued while the socket is reopened runs a pass once the client is logged in
        // again, as the closure of a socket the client gave up does (scripts/test-reconnect, 1).
        let second = try await dropAndAcceptRelogin(client, call, peer) { await client.requestRecovery(.socketDropped) }
        try send("attach", id: 2, ["callID": .string(call.id), "sdp": .string(Self.farEnd(ufrag: "FarEndOne", setup: "actpass"))], to: second)
        try send("clientReady", id: 3, ["reattached_sessions": [.string(call.id)]], to: second)
        // Our attach answer stays unacknowledged: the re-attach is under way while the pass runs,
        // probing the new socket first (in either order with the attach answer).
        let attached = { await self.frames().contains { $0["method"] == "telnyx_rtc.attach" && $0["params"]?["dialogParams"]?["callID"]?.stringValue == call.id } }
        let probes = { await self.frames().filter { $0["method"] == "telnyx_rtc.ping" } }
        try await waitUntil("the attach answer and the pass's probe", within: 10) {
            let probed = await probes().count
            let answered = await attached()
            return probed > 0 && answered
        }
        try reply(to: try #require(await probes().first), ["method": "telnyx_rtc.ping"], on: second)
        let restarts = { await self.frames().filter { $0["method"] == "telnyx_rtc.modify" && $0["params"]?["action"] == "updateMedia" }.count }
        try await waitUntil("the pass ended or restarted the call", within: 5) {
            let pass = await client.recovery.task
            let sent = await restarts()
            return pass == nil || sent > 0
        }
        #expect(await restarts() == 0, "no ICE restart of a call whose re-attach is under way")
        #expect(await call.state == .reconnecting)
        await Self.end(call, client)
    }

    /// Ends the test's call and client, awaited: left up, the call retries its restart for the
    /// minute of its media timeout and opens sockets while later suites check for leaks.
    static func end(_ call: Call, _ client: VoiceClient) async {
        await call.hangup()
        await client.disconnect()
    }

    @Test func anAttachAnswerThatRestartedICEIsFollowedByARestartBothWays() async throws {
        defer { server.stop() }
        let (client, call, peer) = try await answeredCall()
        let second = try await dropAndAcceptRelogin(client, call, peer) {}
        // The far end restarted while we were away: the re-offer brings its new credentials.
        try send("attach", id: 2, ["callID": .string(call.id), "sdp": .string(Self.farEnd(ufrag: "FarEndTwo", setup: "actpass"))], to: second)
        try send("clientReady", id: 3, ["reattached_sessions": [.string(call.id)]], to: second)
        let attach = try await nextFrame("the attach answer") { $0["method"] == "telnyx_rtc.attach" && $0["params"]?["dialogParams"]?["callID"]?.stringValue == call.id }
        let attachUfrag = try #require(attach["params"]?["sdp"]?.stringValue?.firstMatch(of: /a=ice-ufrag:(\S+)/)?.1)
        try reply(to: attach, ["method": "telnyx_rtc.attach"], on: second)
        // Its answer to ours went to no one: our own restart tells it our candidates and brings back its own.
        let restart = try await nextFrame("an ICE restart after the attach") {
            $0["method"] == "telnyx_rtc.modify" && $0["params"]?["action"] == "updateMedia" && $0["params"]?["callID"]?.stringValue == call.id
        }
        let restartUfrag = try #require(restart["params"]?["sdp"]?.stringValue?.firstMatch(of: /a=ice-ufrag:(\S+)/)?.1)
        #expect(restartUfrag != attachUfrag, "a new ICE session, not the attach answer's")
        await Self.end(call, client)
    }
}
