import ICE
@testable import Parley
import Testing

/// A call's negotiation state on its own: trickle, held candidates both ways, the early answer,
/// and an answer in the invite's reply.
@Suite struct CallNegotiationTests {
    @Test func ourCandidatesTrickleOnlyInTrickleModeTowardAPeerThatTrickles() {
        var negotiation = CallNegotiation()
        #expect(negotiation.trickles(in: .trickle))
        #expect(!negotiation.trickles(in: .vanilla(collectionTimeout: .seconds(1))))
        negotiation.peerTrickles(false)
        #expect(!negotiation.trickles(in: .trickle))
    }

    @Test func ourCandidatesWaitUntilTheCallIsSignalled() {
        var negotiation = CallNegotiation()
        let before = [negotiation.pass("candidate:1"), negotiation.pass(nil)]
        #expect(before == [[], []])
        let waited = negotiation.signalled()
        #expect(waited == ["candidate:1", nil])
        let after = negotiation.pass("candidate:2")
        #expect(after == ["candidate:2"])
    }

    @Test func theFarEndsCandidatesWaitForOurLegOnce() {
        var negotiation = CallNegotiation()
        negotiation.holdRemoteCandidate("candidate:a")
        negotiation.holdRemoteCandidate("candidate:b")
        negotiation.holdRemoteEndOfCandidates()
        let held = negotiation.takeRemoteCandidates()
        #expect(held.lines == ["candidate:a", "candidate:b"] && held.ended)
        let again = negotiation.takeRemoteCandidates()
        #expect(again.lines.isEmpty)
    }

    @Test func anAnswerInTheInvitesReplyMakesTheCallActiveOnceSecured() {
        var negotiation = CallNegotiation()
        let withoutAnswer = negotiation.securedMakesActive()
        #expect(!withoutAnswer)
        negotiation.answeredInReply()
        let secured = [negotiation.securedMakesActive(), negotiation.securedMakesActive()]
        #expect(secured == [true, false])
        negotiation.sentEarly(answer: "v=0")
        #expect(negotiation.earlyAnswer == "v=0")
    }
}
