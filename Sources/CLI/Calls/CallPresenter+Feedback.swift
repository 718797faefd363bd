import Foundation
import Parley

extension CallPresenter {
    /// A question on standard error, the answer typed after it on the same line.
    func prompt(_ question: String) {
        clearStatus()
        FileHandle.standardError.write(Data(question.utf8))
    }

    /// The rating a call was given: a `feedback` event, or one line. `sent`: whether the server
    /// took it, when it was offered one.
    func feedback(_ call: String, _ feedback: CallFeedback, sent: Bool? = nil) {
        if json {
            JSONEvents.emit("feedback", FeedbackPayload(call: call, rating: feedback.rating, issue: feedback.issue.rawValue, sent: sent))
        } else {
            let server = sent.map { $0 ? "; sent to the server" : "; the server takes no ratings, so it is kept in the call record file only" } ?? ""
            note("call \(call.prefix(8)) rated \(feedback.rating)" + (feedback.issue == .noIssue ? "" : " (\(feedback.issue.words))") + server)
        }
    }
}

struct FeedbackPayload: Encodable {
    let call: String
    let rating: Int
    let issue: String
    /// Whether the server took the rating (`parley call`); absent after the fact (`parley feedback`).
    var sent: Bool? = nil
}
