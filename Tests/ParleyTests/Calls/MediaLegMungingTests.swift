import Foundation
import Drivers
import Parley
import SDP
import Locking
import TestSupport
import Testing

/// `MediaOptions.munging` and `MediaOptions.sdpObserver` in a real negotiation between two of
/// our legs on loopback: the observer sees the exact texts that cross, sent SDPs carry the rules
/// for what we send, and a rule for what we receive changes what the leg negotiates.
@Suite(.serialized) struct MediaLegMungingTests {
    final class Exchanges: Sendable {
        private let list = Lock<[SDPExchange]>([])
        var observer: @Sendable (SDPExchange) -> Void { { exchange in self.list.withLock { $0.append(exchange) } } }
        var all: [SDPExchange] { list.withLock { $0 } }
    }

    @Test func rulesShapeBothWaysAndTheObserverSeesWhatCrosses() async throws {
        let callerSeen = Exchanges(), calleeSeen = Exchanges()
        var callerOptions = InteropMedia.options(interface: "lo", tone: nil, record: nil, vanilla: true)
        callerOptions.munging = try MungeRules(yaml: """
            - bandwidth: {audio: 64}
              direction: sent
              sdp: offer
            """)
        callerOptions.sdpObserver = callerSeen.observer
        var calleeOptions = InteropMedia.options(interface: "lo", tone: nil, record: nil, vanilla: true)
        // The callee reads the offer as if it held PCMU only, so it answers PCMU although opus comes first.
        calleeOptions.munging = try MungeRules(yaml: """
            - codecs: [PCMU, telephone-event/8000]
              direction: received
            - bandwidth: {audio: 32}
              sdp: answer
              direction: sent
            """)
        calleeOptions.sdpObserver = calleeSeen.observer
        let caller = try MediaLeg(role: .controlling, options: callerOptions, logger: InteropMedia.logger)
        let callee = try MediaLeg(role: .controlled, options: calleeOptions, logger: InteropMedia.logger)

        let offer = try await caller.makeOffer()
        let answer = try await callee.answer(offer)
        try await caller.applyAnswer(answer)

        let sentByCaller = try #require(callerSeen.all.first)
        #expect(sentByCaller.direction == .sent && sentByCaller.kind == .offer && sentByCaller.sdp == offer)
        #expect(offer.contains("b=AS:64\r\n") && offer.contains("opus/48000"))
        #expect(calleeSeen.all.map { "\($0.direction.rawValue)-\($0.kind.rawValue)" } == ["received-offer", "sent-answer"])
        #expect(calleeSeen.all.first?.sdp == offer, "the callee's observer sees the offer as it arrived, before its rules")
        #expect(calleeSeen.all.last?.sdp == answer)
        #expect(callerSeen.all.last.map { $0.direction == .received && $0.kind == .answer && $0.sdp == answer } == true)
        let answered = try SDPParser().parse(answer)
        #expect(answered.media[0].codecs.first?.name == "PCMU")
        #expect(answered.media[0].bandwidths.contains { $0.type == "AS" && $0.value == 32 })
        #expect(await callee.sampleRate == 8000)
        #expect(await caller.sampleRate == 8000)
        await caller.stop()
        await callee.stop()
    }
}
