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

    /// A client that answers our ping with a ping of its own (a request, not a result) is alive.
    @Test func aClientThatAnswersOurPingWithAPingOfItsOwnStaysUp() {
        var core = Self.core()
        Self.login(&core, peer: 7, now: 0)
        core.tick(now: 2)
        _ = core.takeActions()
        core.received(#"{"jsonrpc":"2.0","id":"p1","method":"telnyx_rtc.ping","params":{}}"#, from: 7, now: 2.5)
        #expect(core.takeActions().contains { if case .send(7, let text) = $0 { text.contains("PONG") } else { false } })
        core.tick(now: 5.5)
        #expect(!core.takeActions().contains { if case .close = $0 { true } else { false } })
        #expect(core.onlineLogins == ["alice"])
    }

    /// alice (peer 7) calls bob (peer 8), who rings and does not answer.
    static func ringingCall(noAnswerTimeout: Duration) -> SwitchCore {
        var configuration = SwitchConfiguration(accounts: [SwitchAccount(login: "alice", password: "pw"), SwitchAccount(login: "bob", password: "pw")])
        configuration.noAnswerTimeout = noAnswerTimeout
        var core = SwitchCore(configuration: configuration)
        for (peer, login) in [(7, "alice"), (8, "bob")] {
            core.connected(peer: peer, address: "10.0.0.1", now: 0)
            core.received(#"{"jsonrpc":"2.0","id":1,"method":"login","params":{"login":"\#(login)","passwd":"pw","sessid":"s-\#(login)"}}"#, from: peer, now: 0)
        }
        core.received(#"{"jsonrpc":"2.0","id":2,"method":"telnyx_rtc.invite","params":{"sdp":"v=0","dialogParams":{"callID":"c1","destination_number":"bob"}}}"#,
                      from: 7, now: 1)
        _ = core.takeActions()
        return core
    }

    static func byes(_ actions: [SwitchAction]) -> [Int: String] {
        var byes: [Int: String] = [:]
        for case .send(let peer, let text) in actions where text.contains("telnyx_rtc.bye") { byes[peer] = text }
        return byes
    }

    @Test func aCallNobodyAnswersEndsNoAnswerOnBothSidesAtTheSwitchsTimeout() {
        var core = Self.ringingCall(noAnswerTimeout: .seconds(5))
        #expect(core.nextDeadline.map { $0 <= 6 } == true, "the no-answer deadline is among the core's deadlines")
        core.tick(now: 5.9)
        #expect(Self.byes(core.takeActions()).isEmpty, "still within the no-answer timeout")
        core.tick(now: 6)
        let byes = Self.byes(core.takeActions())
        #expect(byes.keys.sorted() == [7, 8])
        #expect(byes.values.allSatisfy { $0.contains(#""cause":"NO_ANSWER""#) && $0.contains(#""causeCode":19"#) })
        #expect(core.activeCallIDs.isEmpty)
    }

    @Test func shuttingDownSendsEachPartyAByeBeforeAGoingAwayClose() throws {
        var core = Self.ringingCall(noAnswerTimeout: .zero)
        core.tick(now: 1000)
        #expect(Self.byes(core.takeActions()).isEmpty, "no no-answer timeout when it is zero")
        core.shutDown()
        let actions = core.takeActions()
        let byes = Self.byes(actions)
        #expect(byes.keys.sorted() == [7, 8])
        #expect(byes.values.allSatisfy { $0.contains(#""cause":"SYSTEM_SHUTDOWN""#) })
        let closes = actions.enumerated().filter { if case .close(_, 1001, _) = $0.element { true } else { false } }
        #expect(closes.count == 2)
        let lastBye = actions.lastIndex { if case .send(_, let text) = $0 { text.contains("telnyx_rtc.bye") } else { false } } ?? .max
        #expect(closes.allSatisfy { $0.offset > lastBye }, "every bye before the first close")
        // The close frames wait for the clients' answers to the byes.
        #expect(!core.shutdownByesAnswered)
        for (peer, text) in byes.sorted(by: { $0.key < $1.key }) {
            let id = try #require(try JSONValue.parse(text)["id"]?.intValue)
            core.received(#"{"jsonrpc":"2.0","id":\#(id),"result":{"method":"telnyx_rtc.bye"}}"#, from: peer, now: 1001)
        }
        #expect(core.shutdownByesAnswered)
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
