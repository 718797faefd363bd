import Foundation
import Parley
import TestSupport
import Testing

/// Two real media legs on loopback (libnice, DTLS, Opus) whose first offer says a=sendonly: the
/// answerer answers recvonly and sends no RTP however long the call runs, and a later sendrecv
/// re-offer (an unhold) lets its audio flow, without an ICE restart (docs/calls.md, "Hold").
@Suite(.leakChecked, .serialized) struct HoldDirectionLegTests {
    @Test func aRecvonlyAnswerSendsNothingUntilASendrecvReoffer() async throws {
        let options = InteropMedia.options(interface: "lo", codec: "opus", tone: 440, record: nil, vanilla: true)
        let caller = try MediaLeg(role: .controlling, options: options, logger: InteropMedia.logger)
        let callee = try MediaLeg(role: .controlled, options: options, logger: InteropMedia.logger)
        afterTest { await caller.stop(); await callee.stop() }
        let callerEvents = EventRecorder(caller.events)

        let offer = try await caller.makeOffer()
        let answer = try await callee.answer(offer.replacingOccurrences(of: "a=sendrecv\r\n", with: "a=sendonly\r\n"))
        #expect(answer.contains("a=recvonly\r\n"))
        #expect(await callee.farEndHolds)
        try await caller.applyAnswer(answer)
        _ = try await callerEvents.next("caller secured") { if case .secured = $0 { true } else { false } }

        // The caller's audio arrives; the callee, which answered recvonly, sends none of its own.
        try await waitUntil("two seconds of the caller's audio at the callee") { (await callee.statistics().audio?.packetsReceived ?? 0) >= 100 }
        #expect(await callee.statistics().audio?.packetsSent == 0)
        #expect(await caller.statistics().audio?.packetsReceived == 0)

        // The caller re-offers sendrecv with the same ICE credentials: the callee answers
        // sendrecv and starts sending.
        let reoffer = try await caller.holdOffer(holding: false)
        #expect(reoffer.contains("a=sendrecv\r\n"))
        let reanswer = try await callee.answerReoffer(reoffer, moved: false, keepingCredentials: false)
        #expect(!reanswer.restarted)
        #expect(reanswer.sdp.contains("a=sendrecv\r\n"))
        #expect(await !callee.farEndHolds)
        try await caller.applyHoldAnswer(reanswer.sdp)
        try await waitUntil("the callee's audio at the caller") { (await caller.statistics().audio?.packetsReceived ?? 0) >= 25 }
    }
}
