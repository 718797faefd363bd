import Signaling
@testable import Switch
import Testing

/// Blind transfers with a verto.js party: verto.js has no handler for an incoming
/// `modify` transfer, so the switch refuses a transfer it would have to follow, and ends its
/// side with a bye BLIND_TRANSFER when it transfers the other party away.
@Suite struct SwitchVertoJSTransferTests {
    static func core() -> SwitchCore {
        SwitchCore(configuration: SwitchConfiguration(accounts: ["vera", "parley", "carol"].map { SwitchAccount(login: $0, password: "pw") }))
    }

    /// verto.js logs in with its sessid alone, then its credentials after -32000.
    static func vertoJSLogin(_ core: inout SwitchCore, _ login: String, peer: Int) {
        core.connected(peer: peer, now: 0)
        core.received(#"{"jsonrpc":"2.0","id":1,"method":"login","params":{"sessid":"s\#(peer)"}}"#, from: peer, now: 0)
        core.received(#"{"jsonrpc":"2.0","id":2,"method":"login","params":{"login":"\#(login)","passwd":"pw","sessid":"s\#(peer)"}}"#, from: peer, now: 0)
        _ = core.takeActions()
    }

    static func login(_ core: inout SwitchCore, _ login: String, peer: Int) {
        core.connected(peer: peer, now: 0)
        core.received(#"{"jsonrpc":"2.0","id":1,"method":"login","params":{"login":"\#(login)","passwd":"pw","sessid":"s\#(peer)"}}"#, from: peer, now: 0)
        _ = core.takeActions()
    }

    /// `caller` (peer 1) calls `callee` (peer 2), who answers: call "c1".
    static func answeredCall(_ core: inout SwitchCore, callerPrefix: String, calleePrefix: String, callee: String) {
        core.received(#"{"jsonrpc":"2.0","id":3,"method":"\#(callerPrefix)invite","params":{"sdp":"v=0\r\n","dialogParams":{"callID":"c1","destination_number":"\#(callee)"}}}"#, from: 1, now: 1)
        core.received(#"{"jsonrpc":"2.0","id":4,"method":"\#(calleePrefix)answer","params":{"sdp":"v=0\r\n","dialogParams":{"callID":"c1"}}}"#, from: 2, now: 2)
        _ = core.takeActions()
    }

    static func sent(_ actions: [SwitchAction], to peer: Int) -> [String] {
        actions.compactMap { if case .send(peer, let text) = $0 { text } else { nil } }
    }

    /// vera (`verto.*`, logged in as verto.js when `vertoJS`) and parley (`telnyx_rtc.*`) in an
    /// answered call; the caller, peer 1 (vera when `veraTransfers`), transfers it to carol.
    static func transfer(vertoJS: Bool, veraTransfers: Bool) -> (core: SwitchCore, actions: [SwitchAction]) {
        var core = Self.core()
        let vera = veraTransfers ? 1 : 2
        if vertoJS { vertoJSLogin(&core, "vera", peer: vera) } else { login(&core, "vera", peer: vera) }
        login(&core, "parley", peer: 3 - vera)
        login(&core, "carol", peer: 3)
        let prefixes = veraTransfers ? ("verto.", "telnyx_rtc.") : ("telnyx_rtc.", "verto.")
        answeredCall(&core, callerPrefix: prefixes.0, calleePrefix: prefixes.1, callee: veraTransfers ? "parley" : "vera")
        core.received(#"{"jsonrpc":"2.0","id":5,"method":"\#(prefixes.0)modify","params":{"action":"transfer","destination":"carol","dialogParams":{"callID":"c1"}}}"#, from: 1, now: 3)
        return (core, core.takeActions())
    }

    @Test func aTransferThatVertoJSWouldHaveToFollowIsRefusedAndTheCallStays() {
        let (core, actions) = Self.transfer(vertoJS: true, veraTransfers: false)
        let answer = Self.sent(actions, to: 1).first { $0.contains("\"id\":5") } ?? ""
        #expect(answer.contains("-32002") && answer.contains("vera is a verto.js client, which cannot follow a transfer"))
        #expect(Self.sent(actions, to: 2).isEmpty, "verto.js is told nothing it would ignore")
        #expect(core.activeCallIDs == ["c1"])
    }

    @Test func vertoJSTransferringAwayGetsAByeAndTheOtherPartyTheTransfer() {
        let (core, actions) = Self.transfer(vertoJS: true, veraTransfers: true)
        let toVera = Self.sent(actions, to: 1)
        #expect(toVera.contains { $0.contains("\"id\":5") && $0.contains("CALL TRANSFERRED") })
        let bye = toVera.first { $0.contains("\"verto.bye\"") } ?? ""
        #expect(bye.contains("BLIND_TRANSFER") && bye.contains("800") && bye.contains("c1"))
        #expect(Self.sent(actions, to: 2).contains { $0.contains("telnyx_rtc.modify") && $0.contains("carol") })
        #expect(core.activeCallIDs.isEmpty)
    }

    @Test func aParleyClientSpeakingVertoNamesStillFollowsATransfer() {
        let (_, actions) = Self.transfer(vertoJS: false, veraTransfers: false)
        #expect(Self.sent(actions, to: 2).contains { $0.contains("verto.modify") && $0.contains("carol") })
        #expect(!Self.sent(actions, to: 1).contains { $0.contains("bye") }, "a telnyx_rtc transferor handles CALL TRANSFERRED itself")
    }
}
