import ArgumentParser
import Foundation
import Parley

/// `parley feedback CALL-ID RATING [ISSUE]`: rates a call after the fact in the call record file
/// `parley call` wrote (docs/calls.md, "Feedback").
struct FeedbackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feedback",
        abstract: "Rate a call after it ended: 1-5 and what was wrong, kept in the call record file.",
        discussion: """
            CALL-ID is the call's id, or its first 8 characters or more as parley call shows them. ISSUE is one of \
            \(CallFeedback.Issue.choices) (default no-issue). Exit status: 0 rated; 1 no such call (or more than one begins so); \
            64 a bad rating or issue; 66 no call record file.

            Example: parley feedback 1a2b3c4d 2 choppy-audio
            """
    )

    @Argument(help: ArgumentHelp("The call's id, or its first 8 characters or more.", valueName: "CALL-ID"))
    var callID: String

    @Argument(help: ArgumentHelp("1 (bad) to 5 (excellent).", valueName: "RATING"))
    var rating: String

    @Argument(help: ArgumentHelp("What was wrong: \(CallFeedback.Issue.choices).", valueName: "ISSUE"))
    var issue: String?

    @Option(help: ArgumentHelp("The call record file (default $XDG_STATE_HOME/parley/calls.jsonl).", valueName: "FILE"))
    var callLog: String?

    @Flag(help: "Print a feedback event on standard output.")
    var json = false

    func run() throws {
        let feedback: CallFeedback
        do throws(ParleyError) {
            feedback = try CallFeedback(rating: rating, issue: issue)
        } catch {
            Diagnostics.fail("error (\(error.code)): \(error.message)", json: json, code: error.code, status: ExitStatus.usage)
        }
        let id: String
        do throws(LocalInputError) {
            id = try CallLog(path: callLog ?? CallLog.defaultPath()).rate(callID, feedback)
        } catch {
            Diagnostics.fail("error (\(error.error.code)): \(error.error.message)", json: json, code: error.error.code, status: error.status)
        }
        CallPresenter(json: json).feedback(id, feedback)
    }
}
