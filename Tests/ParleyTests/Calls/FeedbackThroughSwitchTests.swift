import Foundation
import Parley
import Signaling
import Switch
import TestSupport
import Testing

/// A call's rating reaches the embedded switch over a real WebSocket (docs/calls.md,
/// "Feedback"): the client's `feedback` request, the switch's `callRated` activity that
/// `/feedback.json` and `parley_switch_call_ratings_total` are made from.
@Suite struct FeedbackThroughSwitchTests {
    @Test func theSwitchTakesARatingAndReportsIt() async throws {
        let configuration = SwitchConfiguration(accounts: [SwitchAccount(login: "alice", password: "alice-secret")])
        let embedded = try await EmbeddedSwitch.start(listen: WebSocketURL(parsing: "ws://127.0.0.1:0"), configuration: configuration)
        let alice = try CallThroughSwitchTests.client("alice", at: embedded.url, play: "silence", record: "null")
        try await alice.connect()
        let feedback = try CallFeedback(rating: 2, issue: .choppyAudio)
        let taken = try await withTimeout(seconds: 5) { () async -> Result<Bool, ParleyError> in
            do throws(ParleyError) { return .success(try await alice.sendFeedback(feedback, callID: "call-1")) } catch { return .failure(error) }
        }
        #expect(try taken.get())
        let rated = try await withTimeout(seconds: 5) { () async -> SwitchFeedback? in
            for await activity in embedded.activity { if case .callRated(let rated) = activity { return rated } }
            return nil
        }
        #expect(rated == SwitchFeedback(callID: "call-1", login: "alice", rating: 2, issue: "choppy-audio"))
        await alice.disconnect()
        await embedded.stop()
    }

    /// The switch checks the issue against its own list: the same as the client's.
    @Test func theSwitchKnowsEveryIssueTheClientSends() {
        #expect(CallFeedback.Issue.allCases.map(\.rawValue) == SwitchFeedback.issues)
    }
}
