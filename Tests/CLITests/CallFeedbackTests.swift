@testable import CLI
import Foundation
import Parley
import Testing

/// A call's rating (docs/calls.md, "Feedback"): 1-5 and one of Exotel's issues, typed errors
/// for anything else, the prompt's answers, and the call record file `parley feedback` rates in.
@Suite struct CallFeedbackTests {
    @Test func aRatingAndAnIssueParse() throws {
        #expect(try CallFeedback(parsing: "4:echo") == CallFeedback(rating: 4, issue: .echo))
        #expect(try CallFeedback(parsing: "5") == CallFeedback(rating: 5, issue: .noIssue))
        #expect(try CallFeedback(parsing: "2:choppy audio").issue == .choppyAudio)
        #expect(try CallFeedback(parsing: "1:High-Latency").issue == .highLatency)
        #expect(try CallFeedback(rating: " 3 ", issue: "2").issue == .backgroundNoise)
        #expect(CallFeedback.Issue.allCases.map(\.rawValue) == ["no-issue", "background-noise", "choppy-audio", "high-latency", "no-audio", "echo"])
    }

    @Test(arguments: ["0", "6", "-1", "x", "4.5", "", "4:ecko", "4:", "4:7", ":echo"])
    func anythingElseIsATypedError(text: String) {
        let error = #expect(throws: ParleyError.self) { try CallFeedback(parsing: text) }
        #expect(error?.kind == .configuration)
        #expect(error?.message.contains("rating") == true || error?.message.contains("no-issue, background-noise") == true)
    }

    @Test func theRecordCarriesItsFeedback() throws {
        var record = CallRecord(timeline: CallTimeline(), summary: QualitySummary(), recoveries: 0, termination: TerminationReason())
        record.feedback = try CallFeedback(rating: 2, issue: .noAudio)
        let line = JSONEvents.line("ended", EndedPayload(call: "c1", reason: record.termination, record: record), at: Date(timeIntervalSince1970: 0))
        #expect(line.contains(#""feedback":{"issue":"no-audio","rating":2}"#))
    }

    @Test func thePromptAsksAgainAfterAWrongAnswer() {
        var answers = ["7", "4", "ecko", "6"][...]
        let presenter = CallPresenter(json: true)
        let feedback = FeedbackPrompt.ask(presenter: presenter) { answers.popFirst() }
        #expect(feedback == (try? CallFeedback(rating: 4, issue: .echo)))
        var skipped = [""][...]
        #expect(FeedbackPrompt.ask(presenter: presenter) { skipped.popFirst() } == nil)
        var noIssue = ["3", ""][...]
        #expect(FeedbackPrompt.ask(presenter: presenter) { noIssue.popFirst() } == (try? CallFeedback(rating: 3)))
    }

    @Test func parleyFeedbackRatesACallInTheRecordFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-feedback-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = CallLog(path: folder.appendingPathComponent("state/calls.jsonl").path)
        let record = CallRecord(timeline: CallTimeline(), summary: QualitySummary(), recoveries: 0, termination: TerminationReason())
        for id in ["1a2b3c4d-0000", "9f9f9f9f-0001", "9f9f9f9f-0002"] { try log.append(CallLog.Entry(call: id, remoteParty: "bob", record: record)) }
        #expect(try log.rate("1a2b3c4d", CallFeedback(rating: 2, issue: .echo)) == "1a2b3c4d-0000")
        let lines = try String(contentsOfFile: log.path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 3)
        let rated = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        let feedback = try #require((rated["record"] as? [String: Any])?["feedback"] as? [String: Any])
        #expect(feedback["rating"] as? Int == 2 && feedback["issue"] as? String == "echo")
        #expect(!lines[1].contains("feedback"))
        let ambiguous = #expect(throws: LocalInputError.self) { try log.rate("9f9f9f9f", CallFeedback(rating: 5)) }
        #expect(ambiguous?.error.kind == .callNotFound && ambiguous?.error.message.contains("2 calls") == true)
        let missing = #expect(throws: LocalInputError.self) { try log.rate("00000000", CallFeedback(rating: 5)) }
        #expect(missing?.status == 1)
        let short = #expect(throws: LocalInputError.self) { try log.rate("1a2b", CallFeedback(rating: 5)) }
        #expect(short?.status == 64)
        let noFile = #expect(throws: LocalInputError.self) { try CallLog(path: folder.appendingPathComponent("none.jsonl").path).rate("1a2b3c4d", CallFeedback(rating: 5)) }
        #expect(noFile?.status == LocalInputError.unreadableInput)
    }
}
