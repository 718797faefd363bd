import Signaling
@testable import Switch
import Testing

/// The switch answers each client in the dialect it speaks (`verto.*` or `telnyx_rtc.*`), lets
/// verto.js log in its own way and keeps it alive as FreeSWITCH does, on the core state machine
/// with no sockets (docs/verto-protocol.md §14).
@Suite struct SwitchDialectTests {
    static let vertoPeer = 1
    static let telnyxPeer = 2

    static func core() -> SwitchCore {
        var configuration = SwitchConfiguration(accounts: [SwitchAccount(login: "vera", password: "pw-v"), SwitchAccount(login: "tess", password: "pw-t")])
        configuration.pingInterval = .seconds(2)
        configuration.pingTimeout = .seconds(3)
        return SwitchCore(configuration: configuration)
    }

    /// The frames the switch sent to `peer`, parsed.
    static func frames(_ actions: [SwitchAction], to peer: Int) throws -> [JSONValue] {
        try actions.compactMap { action -> JSONValue? in
            guard case .send(peer, let text) = action else { return nil }
            return try JSONValue.parse(text)
        }
    }

    static func request(_ id: Int, _ method: String, _ params: String) -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"#
    }

    /// Logs in as verto.js does: the sessid alone, the credentials only after -32000.
    static func vertoJSLogin(_ core: inout SwitchCore, now: Double = 0) throws -> [JSONValue] {
        core.connected(peer: vertoPeer, address: "10.0.0.1", now: now)
        core.received(request(1, "login", #"{"sessid":"sv"}"#), from: vertoPeer, now: now)
        core.received(request(2, "login", #"{"login":"vera","passwd":"pw-v","loginParams":{},"sessid":"sv"}"#), from: vertoPeer, now: now)
        return try frames(core.takeActions(), to: vertoPeer)
    }

    static func telnyxLogin(_ core: inout SwitchCore, now: Double = 0) throws -> [JSONValue] {
        core.connected(peer: telnyxPeer, address: "10.0.0.2", now: now)
        core.received(request(1, "login", #"{"login":"tess","passwd":"pw-t","sessid":"st"}"#), from: telnyxPeer, now: now)
        return try frames(core.takeActions(), to: telnyxPeer)
    }

    static func methods(_ frames: [JSONValue]) -> [String] { frames.compactMap { $0["method"]?.stringValue } }

    @Test func aLoginWithoutCredentialsIsAskedForThemAndVertoJSLogsIn() throws {
        var core = Self.core()
        let frames = try Self.vertoJSLogin(&core)
        let refusal = try #require(frames.first)
        #expect(refusal["id"]?.intValue == 1)
        #expect(refusal["error"]?["code"]?.intValue == -32000)
        #expect(refusal["error"]?["message"] == "Authentication Required")
        #expect(frames.dropFirst().first?["result"]?["message"] == "logged in")
        #expect(Self.methods(frames) == ["verto.clientReady"])
        #expect(core.onlineLogins == ["vera"])
    }

    @Test func aClientThatSendsItsCredentialsAtOnceHearsTelnyxNames() throws {
        var core = Self.core()
        #expect(Self.methods(try Self.telnyxLogin(&core)) == ["telnyx_rtc.clientReady"])
    }

    @Test(arguments: [
        (#"{"login":"vera","sessid":"s"}"#, -32001, "Missing passwd"),
        (#"{"login":"vera","passwd":"","sessid":"s"}"#, -32001, "Missing passwd"),
        (#"{"login":"vera","passwd":"wrong","sessid":"s"}"#, -32001, "Login Incorrect"),
        (#"{"login":"nobody","passwd":"x","sessid":"s"}"#, -32001, "Login Incorrect"),
        (#"{"login":"","passwd":"pw-v","sessid":"s"}"#, -32000, "Authentication Required"),
        (#"[]"#, -32001, "Missing params"),
    ])
    func loginErrorsAreFreeSWITCHs(params: String, code: Int, message: String) throws {
        var core = Self.core()
        core.connected(peer: 9, now: 0)
        core.received(Self.request(1, "login", params), from: 9, now: 0)
        let answer = try #require(try Self.frames(core.takeActions(), to: 9).first)
        #expect(answer["error"]?["code"]?.intValue == code)
        #expect(answer["error"]?["message"]?.stringValue == message)
        #expect(core.onlineLogins.isEmpty)
    }

    /// verto.js calls a telnyx_rtc client; each hears the call in its own names.
    @Test func oneCallJoinsAVertoAndATelnyxClient() throws {
        var core = Self.core()
        _ = try Self.vertoJSLogin(&core)
        _ = try Self.telnyxLogin(&core)
        let dialog = #"{"callID":"c1","destination_number":"tess","caller_id_name":"vera","caller_id_number":"vera"}"#
        core.received(Self.request(3, "verto.invite", #"{"sdp":"v=0\r\n","dialogParams":\#(dialog)}"#), from: Self.vertoPeer, now: 1)
        core.received(Self.request(4, "telnyx_rtc.answer", #"{"sdp":"v=0\r\n","dialogParams":{"callID":"c1"}}"#), from: Self.telnyxPeer, now: 1)
        core.received(Self.request(5, "verto.info", #"{"dtmf":"5","dialogParams":\#(dialog)}"#), from: Self.vertoPeer, now: 1)
        core.received(Self.request(6, "verto.modify", #"{"action":"hold","dialogParams":\#(dialog)}"#), from: Self.vertoPeer, now: 1)
        core.received(Self.request(7, "telnyx_rtc.bye", #"{"cause":"NORMAL_CLEARING","dialogParams":{"callID":"c1"}}"#), from: Self.telnyxPeer, now: 1)
        let actions = core.takeActions()
        #expect(Self.methods(try Self.frames(actions, to: Self.vertoPeer)) == ["verto.ringing", "verto.answer", "verto.bye"])
        #expect(Self.methods(try Self.frames(actions, to: Self.telnyxPeer)) == ["telnyx_rtc.invite", "telnyx_rtc.info", "telnyx_rtc.modify"])
        #expect(core.activeCallIDs.isEmpty)
    }

    /// Parley's client with `methodPrefix: "verto"` logs in with its credentials at once: from its
    /// first `verto.*` request on, it hears `verto.*`.
    @Test func aClientIsAnsweredInTheDialectOfItsLatestRequest() throws {
        var core = Self.core()
        _ = try Self.telnyxLogin(&core)
        core.connected(peer: 3, now: 0)
        core.received(Self.request(1, "login", #"{"login":"vera","passwd":"pw-v","sessid":"sp"}"#), from: 3, now: 0)
        #expect(Self.methods(try Self.frames(core.takeActions(), to: 3)) == ["telnyx_rtc.clientReady"])
        core.received(Self.request(2, "verto.invite", #"{"sdp":"v=0\r\n","dialogParams":{"callID":"c2","destination_number":"tess"}}"#), from: 3, now: 1)
        core.received(Self.request(3, "telnyx_rtc.bye", #"{"dialogParams":{"callID":"c2"}}"#), from: Self.telnyxPeer, now: 1)
        let actions = core.takeActions()
        #expect(Self.methods(try Self.frames(actions, to: 3)) == ["verto.ringing", "verto.bye"])
        #expect(Self.methods(try Self.frames(actions, to: Self.telnyxPeer)) == ["telnyx_rtc.invite"])
    }

    /// verto.js answers no request without a call id: as FreeSWITCH, the switch pings it every
    /// interval of silence and never takes the missing answer as a dead socket.
    @Test func aVertoClientThatAnswersNoPingStaysLoggedIn() throws {
        var core = Self.core()
        _ = try Self.vertoJSLogin(&core)
        var pings = 0
        for now in stride(from: 0.5, through: 20, by: 0.5) {
            core.tick(now: now)
            let actions = core.takeActions()
            #expect(!actions.contains { if case .close = $0 { true } else { false } }, "closed at \(now) s")
            pings += Self.methods(try Self.frames(actions, to: Self.vertoPeer)).filter { $0 == "verto.ping" }.count
        }
        #expect(pings == 10, "one ping per 2 s of silence")
        #expect(core.onlineLogins == ["vera"])
        let deadline = try #require(core.nextDeadline)
        #expect(deadline > 20 && deadline <= 22)
    }
}
