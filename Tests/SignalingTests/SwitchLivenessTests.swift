import Signaling
@testable import Switch
import Testing

/// The switch's side of reconnection, on the core state machine with no sockets: a client that
/// answers no ping is dropped and its calls detach; a re-offer carries the candidates the other
/// side trickled.
@Suite struct SwitchLivenessTests {
    static func core() -> SwitchCore {
        var configuration = SwitchConfiguration(accounts: [SwitchAccount(login: "alice", password: "pw")])
        configuration.pingInterval = .seconds(2)
        configuration.pingTimeout = .seconds(3)
        return SwitchCore(configuration: configuration)
    }

    static func login(_ core: inout SwitchCore, peer: Int, now: Double) {
        core.connected(peer: peer, address: "10.0.0.1", now: now)
        core.received(#"{"jsonrpc":"2.0","id":1,"method":"login","params":{"login":"alice","passwd":"pw","sessid":"s1"}}"#, from: peer, now: now)
        _ = core.takeActions()
    }

    @Test func aClientThatAnswersNoPingIsDroppedAtThePingTimeout() {
        var core = Self.core()
        Self.login(&core, peer: 7, now: 0)
        core.tick(now: 2)
        let ping = core.takeActions()
        #expect(ping.contains { if case .send(7, let text) = $0 { text.contains("telnyx_rtc.ping") } else { false } })
        core.tick(now: 4.9)
        #expect(!core.takeActions().contains { if case .close = $0 { true } else { false } }, "still within the ping timeout")
        core.tick(now: 5)
        #expect(core.takeActions().contains(.close(peer: 7, code: 1001, reason: "ping timeout")))
        #expect(core.onlineLogins.isEmpty)
    }

    @Test func anyFrameFromTheClientAnswersThePing() {
        var core = Self.core()
        Self.login(&core, peer: 7, now: 0)
        core.tick(now: 2)
        _ = core.takeActions()
        core.received(#"{"jsonrpc":"2.0","id":5,"result":{"method":"telnyx_rtc.ping"}}"#, from: 7, now: 2.5)
        core.tick(now: 5.5)
        #expect(!core.takeActions().contains { if case .close = $0 { true } else { false } })
        #expect(core.onlineLogins == ["alice"])
    }

    @Test func aReofferCarriesTheTrickledCandidatesOnce() {
        let sdp = "v=0\r\no=- 1 2 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\nc=IN IP4 0.0.0.0\r\na=mid:0\r\n"
        let candidate = "candidate:1 1 udp 2130706431 10.0.1.2 5000 typ host"
        let spliced = SDPCandidates.adding([candidate, candidate], to: sdp)
        #expect(spliced.hasSuffix("a=mid:0\r\na=\(candidate)\r\na=end-of-candidates\r\n"))
        #expect(SDPCandidates.adding([candidate], to: spliced) == spliced, "known candidates are not added again")
        #expect(SDPCandidates.adding([], to: sdp) == sdp)
    }
}
