@testable import Parley
import Logging
import Signaling
import TestSupport
import Testing

/// Calls placed together on one flow (`parley load` over SIP) answer their proxy's digest
/// challenges each on its own: with three INVITEs challenged 407 at once, all three come back
/// with their Proxy-Authorization before any of them is answered, so one call's challenge
/// never waits for another's answer.
@Suite(.serialized) struct SIPConcurrentChallengeTests {
    @Test func eachInviteAnswersItsChallengeWithoutWaitingForTheOthers() async throws {
        let peer = try LoopbackSIPPeer(datagram: true)
        let endpoint = try await SIPEndpoint.opened(toLoopback: peer)
        let account = SIPAccount(user: "alice", domain: "parley.test", password: "alice-secret")
        let ids = ["together-1", "together-2", "together-3"]
        var calls: [SIPCallSignalling] = []
        for id in ids {
            let signalling = SIPCallSignalling(callID: id, endpoint: endpoint, account: account, logger: Logger(label: "test"), onClose: { _ in })
            _ = try await signalling.invite(callID: id, destination: "bob", options: DialOptions(), sdp: SIPInDialogRequestTests.ours, trickle: false)
            calls.append(signalling)
        }
        // The first INVITE of each call, each challenged.
        var challenged: Set<String> = []
        for _ in 0..<100 where challenged.count < ids.count {
            let message = try SIPMessage.parse(Array(try peer.receive(within: 5).utf8))
            guard message.method == "INVITE", message.header("Proxy-Authorization") == nil, challenged.insert(try message.callID()).inserted else { continue }
            let challenge = SIPHeader("Proxy-Authenticate", "Digest realm=\"parley.test\", nonce=\"nonce-\(try message.callID())\", qop=\"auth\", algorithm=MD5")
            try peer.send(SIPMessage.response(to: message, status: 407, reason: "Proxy Authentication Required", toTag: "proxy", headers: [challenge]).serializedText)
        }
        #expect(challenged == Set(ids))
        // Every call's answered INVITE, while none has a final response yet.
        var answered: [String: SIPMessage] = [:]
        for _ in 0..<100 where answered.count < ids.count {
            let message = try SIPMessage.parse(Array(try peer.receive(within: 5).utf8))
            guard message.method == "INVITE", let authorization = message.header("Proxy-Authorization") else { continue }
            #expect(authorization.value.contains("nonce=\"nonce-\(try message.callID())\""))
            answered[try message.callID()] = message
        }
        #expect(Set(answered.keys) == Set(ids))
        for invite in answered.values {
            try peer.send(SIPMessage.response(to: invite, status: 486, reason: "Busy Here", toTag: "callee").serializedText)
        }
        for call in calls { await call.close() }
        await endpoint.close()
    }
}
