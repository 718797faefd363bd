import Signaling
@testable import Switch
import Testing

/// Trickle between the switch's two sides, on the core state machine with no sockets
/// (docs/signaling.md, "Trickle ICE"): a side that did not opt in gets the other's candidates
/// inside the SDP it is sent, never as messages; end-of-candidates goes, as a notification, only
/// to a side that trickles; every answer reaches the side that made the offer.
@Suite struct SwitchTrickleTests {
    static let sdp = "v=0\r\no=- 1 2 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\nc=IN IP4 0.0.0.0\r\na=mid:0\r\n"
    static let aliceCandidate = "candidate:1 1 udp 2130706431 10.0.1.1 5000 typ host"
    static let bobCandidate = "candidate:2 1 udp 2130706431 10.0.1.2 6000 typ host"

    struct Bed {
        var core: SwitchCore
        /// alice on peer 1, bob on peer 2.
        init() {
            var configuration = SwitchConfiguration(accounts: [SwitchAccount(login: "alice", password: "pw"), SwitchAccount(login: "bob", password: "pw")])
            configuration.candidateWait = .seconds(2)
            core = SwitchCore(configuration: configuration)
            for (peer, name) in [(1, "alice"), (2, "bob")] {
                core.connected(peer: peer, now: 0)
                core.received(#"{"jsonrpc":"2.0","id":1,"method":"login","params":{"login":"\#(name)","passwd":"pw","sessid":"s-\#(name)"}}"#, from: peer, now: 0)
            }
            _ = core.takeActions()
        }

        mutating func send(_ method: String, _ params: String, from peer: Int, now: Double = 0.1) {
            core.received(#"{"jsonrpc":"2.0","id":"r\#(Int.random(in: 1...1_000_000))","method":"telnyx_rtc.\#(method)","params":\#(params)}"#, from: peer, now: now)
        }

        /// Frames sent to `peer` since the last call, parsed.
        mutating func frames(to peer: Int) -> [JSONValue] {
            core.takeActions().compactMap { action -> JSONValue? in
                guard case .send(peer, let text) = action, let message = try? JSONRPCMessage.parse(text) else { return nil }
                return message.frame
            }
        }

        static func sdpJSON(_ sdp: String) -> String { sdp.replacingOccurrences(of: "\r\n", with: "\\r\\n") }
    }

    static func methods(_ frames: [JSONValue]) -> [String] { frames.compactMap { $0["method"]?.stringValue } }

    @Test func aTricklingCallersInviteWaitsForItsCandidatesAndCarriesThem() throws {
        var bed = Bed()
        bed.send("invite", #"{"sdp":"\#(Bed.sdpJSON(Self.sdp))","trickle":true,"dialogParams":{"callID":"c1","destination_number":"bob"}}"#, from: 1)
        #expect(!Self.methods(bed.frames(to: 2)).contains("telnyx_rtc.invite"), "held until the caller's candidates end")
        bed.send("candidate", #"{"candidate":"\#(Self.aliceCandidate)","sdpMid":"0","sdpMLineIndex":0,"dialogParams":{"callID":"c1"}}"#, from: 1)
        #expect(bed.frames(to: 2).isEmpty, "no candidate message to a callee whose mode is not known")
        bed.send("endOfCandidates", #"{"endOfCandidates":true,"dialogParams":{"callID":"c1"}}"#, from: 1)
        let sent = bed.frames(to: 2)
        #expect(Self.methods(sent) == ["telnyx_rtc.invite"])
        let invite = try #require(sent.first)
        let forwarded = try #require(invite["params"]?["sdp"]?.stringValue)
        #expect(forwarded.contains("a=\(Self.aliceCandidate)\r\n"))
        #expect(forwarded.contains("a=end-of-candidates\r\n"))
        #expect(invite["params"]?["trickle"] == true)
    }

    @Test func aHeldInviteGoesAtTheCandidateWaitWithTheCandidatesSoFar() throws {
        var bed = Bed()
        bed.send("invite", #"{"sdp":"\#(Bed.sdpJSON(Self.sdp))","trickle":true,"dialogParams":{"callID":"c1","destination_number":"bob"}}"#, from: 1)
        bed.send("candidate", #"{"candidate":"\#(Self.aliceCandidate)","dialogParams":{"callID":"c1"}}"#, from: 1)
        _ = bed.core.takeActions()
        #expect(bed.core.nextDeadline.map { $0 <= 2.1 } == true)
        bed.core.tick(now: 2.0)
        #expect(!Self.methods(bed.frames(to: 2)).contains("telnyx_rtc.invite"))
        bed.core.tick(now: 2.1)
        let invite = try #require(bed.frames(to: 2).first { $0["method"] == "telnyx_rtc.invite" })
        #expect(invite["params"]?["sdp"]?.stringValue?.contains("a=\(Self.aliceCandidate)\r\n") == true)
    }

    @Test func aVanillaCallerGetsTheTricklingCalleesCandidatesInTheAnswerAndNoCandidateMessages() throws {
        var bed = Bed()
        bed.send("invite", #"{"sdp":"\#(Bed.sdpJSON(Self.sdp))","dialogParams":{"callID":"c1","destination_number":"bob"}}"#, from: 1)
        #expect(Self.methods(bed.frames(to: 2)) == ["telnyx_rtc.invite"], "a complete SDP goes at once")
        bed.send("answer", #"{"sdp":"\#(Bed.sdpJSON(Self.sdp))","trickle":true,"dialogParams":{"callID":"c1"}}"#, from: 2)
        bed.send("candidate", #"{"candidate":"\#(Self.bobCandidate)","dialogParams":{"callID":"c1"}}"#, from: 2)
        #expect(!Self.methods(bed.frames(to: 1)).contains("telnyx_rtc.answer"), "held until the callee's candidates end")
        bed.send("endOfCandidates", #"{"dialogParams":{"callID":"c1"}}"#, from: 2)
        let sent = bed.frames(to: 1)
        #expect(Self.methods(sent) == ["telnyx_rtc.answer"], "no candidate or endOfCandidates to a caller that does not trickle")
        let answer = try #require(sent.first)
        #expect(answer["params"]?["sdp"]?.stringValue?.contains("a=\(Self.bobCandidate)\r\n") == true)
        #expect(answer["params"]?["trickle"] == nil)
    }

    @Test func twoTricklingSidesTrickleAndEndOfCandidatesIsANotification() throws {
        var bed = Bed()
        bed.send("invite", #"{"sdp":"\#(Bed.sdpJSON(Self.sdp))","trickle":true,"dialogParams":{"callID":"c1","destination_number":"bob"}}"#, from: 1)
        bed.send("endOfCandidates", #"{"dialogParams":{"callID":"c1"}}"#, from: 1)
        _ = bed.core.takeActions()
        bed.send("answer", #"{"sdp":"\#(Bed.sdpJSON(Self.sdp))","trickle":true,"dialogParams":{"callID":"c1"}}"#, from: 2)
        let answer = try #require(bed.frames(to: 1).first { $0["method"] == "telnyx_rtc.answer" })
        #expect(answer["params"]?["trickle"] == true)
        #expect(answer["params"]?["sdp"]?.stringValue == Self.sdp)
        bed.send("candidate", #"{"candidate":"\#(Self.bobCandidate)","sdpMid":"0","sdpMLineIndex":0,"dialogParams":{"callID":"c1"}}"#, from: 2)
        bed.send("endOfCandidates", #"{"dialogParams":{"callID":"c1"}}"#, from: 2)
        let sent = bed.frames(to: 1)
        #expect(Self.methods(sent) == ["telnyx_rtc.candidate", "telnyx_rtc.endOfCandidates"])
        #expect(sent.first?["params"]?["candidate"]?.stringValue == Self.bobCandidate)
        #expect(sent.last?["id"] == nil, "a notification: no request nobody answers")
    }

    @Test func theAnswerToAReattachReachesTheClientThatReattached() throws {
        var bed = Bed()
        bed.send("invite", #"{"sdp":"\#(Bed.sdpJSON(Self.sdp))","trickle":true,"dialogParams":{"callID":"c1","destination_number":"bob"}}"#, from: 1)
        bed.send("endOfCandidates", #"{"dialogParams":{"callID":"c1"}}"#, from: 1)
        bed.send("answer", #"{"sdp":"\#(Bed.sdpJSON(Self.sdp))","trickle":true,"dialogParams":{"callID":"c1"}}"#, from: 2)
        // alice's socket drops; she logs in again on peer 3 and answers the attach re-offer.
        bed.core.disconnected(peer: 1, now: 1)
        bed.core.connected(peer: 3, now: 2)
        bed.core.received(#"{"jsonrpc":"2.0","id":1,"method":"login","params":{"login":"alice","passwd":"pw","sessid":"s-alice"}}"#, from: 3, now: 2)
        _ = bed.core.takeActions()
        bed.core.received(#"{"jsonrpc":"2.0","id":"att","method":"telnyx_rtc.attach","params":{"sdp":"\#(Bed.sdpJSON(Self.sdp))","dialogParams":{"callID":"c1","attach":true}}}"#, from: 3, now: 2.1)
        let actions = bed.core.takeActions()
        bed.core.actions = actions
        #expect(bed.frames(to: 3).contains { $0["id"] == "att" && $0["result"]?["message"] == "CALL ATTACHED" }, "the attach is answered at once")
        bed.core.actions = actions
        let update = try #require(bed.frames(to: 2).first { $0["method"] == "telnyx_rtc.modify" })
        #expect(update["params"]?["reattach"] == true)
        let bobAnswer = Self.sdp + "a=\(Self.bobCandidate)\r\n"
        let requestID = try #require(update["id"]?.intValue)
        let reply = JSONRPCMessage.resultFrame(id: .number(requestID), result: ["sdp": .string(bobAnswer)])
        bed.core.received(reply.serialized, from: 2, now: 2.2)
        let sent = bed.frames(to: 3)
        #expect(Self.methods(sent) == ["telnyx_rtc.candidate", "telnyx_rtc.endOfCandidates"], "alice trickles: bob's new candidates as messages")
        #expect(sent.first { $0["method"] == "telnyx_rtc.candidate" }?["params"]?["candidate"]?.stringValue == Self.bobCandidate)
    }
}
