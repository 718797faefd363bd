import Signaling
@testable import Switch
import Testing

/// `user@domain` logins, as FreeSWITCH's verto users log in: `bob@example.com` is
/// `bob` in the switch's `--domain`, or in any domain when it has none; and the invite a callee
/// gets says `display_direction: "outbound"`, as FreeSWITCH's and Telnyx's do.
@Suite struct SwitchDomainLoginTests {
    static func core(domain: String? = nil) -> SwitchCore {
        var configuration = SwitchConfiguration(accounts: [SwitchAccount(login: "bob", password: "pw"), SwitchAccount(login: "carol", password: "pw")])
        configuration.domain = domain
        return SwitchCore(configuration: configuration)
    }

    /// The login's result or error frame.
    static func login(_ core: inout SwitchCore, _ login: String, peer: Int = 1, password: String = "pw") -> String {
        core.connected(peer: peer, address: "10.0.0.\(peer)", now: 0)
        core.received(#"{"jsonrpc":"2.0","id":1,"method":"login","params":{"login":"\#(login)","passwd":"\#(password)","sessid":"s\#(peer)"}}"#, from: peer, now: 0)
        return core.takeActions().compactMap { if case .send(peer, let text) = $0, text.contains("\"id\":1") { text } else { nil } }.first ?? ""
    }

    @Test func anyDomainLogsInAsTheUserWithoutADomainConfigured() {
        var core = Self.core()
        #expect(Self.login(&core, "bob@example.com").contains("logged in"))
        #expect(core.onlineLogins == ["bob"], "the session is bob's, the login name without its domain")
    }

    @Test func onlyTheConfiguredDomainLogsIn() {
        var core = Self.core(domain: "Example.com")
        #expect(Self.login(&core, "bob@example.COM", peer: 1).contains("logged in"), "domains compare without case")
        let other = Self.login(&core, "carol@elsewhere.net", peer: 2)
        #expect(other.contains("-32001") && other.contains("Login Incorrect"))
        #expect(Self.login(&core, "carol", peer: 3).contains("logged in"), "a bare login still works")
    }

    @Test func aWrongPasswordOrAnEmptyPartIsRefused() {
        var core = Self.core()
        #expect(Self.login(&core, "bob@example.com", peer: 1, password: "wrong").contains("Login Incorrect"))
        #expect(Self.login(&core, "bob@", peer: 2).contains("Login Incorrect"))
        #expect(Self.login(&core, "@example.com", peer: 3).contains("Login Incorrect"))
        #expect(Self.login(&core, "nobody@example.com", peer: 4).contains("Login Incorrect"))
    }

    @Test func aCallToADomainLoginReachesItsUserAndSaysOutbound() throws {
        var core = Self.core()
        _ = Self.login(&core, "bob@example.com", peer: 1)
        _ = Self.login(&core, "carol", peer: 2)
        core.received(#"{"jsonrpc":"2.0","id":2,"method":"verto.invite","params":{"sdp":"v=0\r\n","dialogParams":{"callID":"c1","destination_number":"bob","caller_id_name":"Carol","caller_id_number":"carol"}}}"#,
                      from: 2, now: 1)
        let invite = try #require(core.takeActions().compactMap { if case .send(1, let text) = $0, text.contains(".invite\"") { text } else { nil } }.first)
        let params = try #require(try JSONValue.parse(invite)["params"])
        #expect(params["display_direction"]?.stringValue == "outbound")
        #expect(params["caller_id_name"]?.stringValue == "Carol")
    }
}
