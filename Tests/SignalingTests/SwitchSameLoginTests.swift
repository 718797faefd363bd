import Signaling
@testable import Switch
import Testing

/// Two processes logged in as one user, and a user calling itself (issue 30, item 11): the switch
/// says so, and a call goes to the newest session.
@Suite struct SwitchSameLoginTests {
    static func core() -> SwitchCore {
        SwitchCore(configuration: SwitchConfiguration(accounts: [SwitchAccount(login: "alice", password: "pw"), SwitchAccount(login: "bob", password: "pw")]))
    }

    static func login(_ core: inout SwitchCore, _ login: String, sessid: String, peer: Int, now: Double) -> [SwitchAction] {
        core.connected(peer: peer, address: "10.0.0.\(peer)", now: now)
        core.received(#"{"jsonrpc":"2.0","id":1,"method":"login","params":{"login":"\#(login)","passwd":"pw","sessid":"\#(sessid)"}}"#, from: peer, now: now)
        return core.takeActions()
    }

    static func invite(_ core: inout SwitchCore, to destination: String, callID: String, from peer: Int) -> [SwitchAction] {
        core.received(#"{"jsonrpc":"2.0","id":2,"method":"verto.invite","params":{"sdp":"v=0\r\n","dialogParams":{"callID":"\#(callID)","destination_number":"\#(destination)"}}}"#,
                      from: peer, now: 10)
        return core.takeActions()
    }

    private static func sentInvite(_ actions: [SwitchAction], to peer: Int) -> Bool {
        actions.contains { if case .send(peer, let text) = $0 { text.contains(".invite\"") } else { false } }
    }

    @Test func aSecondLoginIsLoggedAndTakesTheNewCalls() {
        var core = Self.core()
        _ = Self.login(&core, "alice", sessid: "first", peer: 1, now: 0)
        let second = Self.login(&core, "alice", sessid: "second", peer: 2, now: 1)
        #expect(second.contains(.activity(.loginTakesOver(login: "alice", peer: "10.0.0.2", previousPeer: "10.0.0.1"))))
        _ = Self.login(&core, "bob", sessid: "bob", peer: 3, now: 2)
        let routed = Self.invite(&core, to: "alice", callID: "c1", from: 3)
        #expect(Self.sentInvite(routed, to: 2), "the newest session rings")
        #expect(!Self.sentInvite(routed, to: 1))
    }

    @Test func aReconnectWithTheSameSessidIsNoTakeOver() {
        var core = Self.core()
        _ = Self.login(&core, "alice", sessid: "first", peer: 1, now: 0)
        let again = Self.login(&core, "alice", sessid: "first", peer: 2, now: 1)
        #expect(!again.contains { if case .activity(.loginTakesOver) = $0 { true } else { false } })
    }

    @Test func callingYourselfSaysSo() {
        var core = Self.core()
        _ = Self.login(&core, "alice", sessid: "first", peer: 1, now: 0)
        let actions = Self.invite(&core, to: "alice", callID: "c1", from: 1)
        let bye = actions.compactMap { action -> String? in if case .send(1, let text) = action, text.contains(".bye\"") { text } else { nil } }
        #expect(bye.count == 1)
        #expect(bye.first?.contains("alice called itself") == true)
        #expect(bye.first?.contains("USER_BUSY") == true)
    }
}
