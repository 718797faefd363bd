import Foundation
import Parley

extension CallPresenter {
    /// A question on standard error, the answer typed after it on the same line.
    func prompt(_ question: String) {
        clearStatus()
        FileHandle.standardError.write(Data(question.utf8))
    }

    /// The rating a call was given: a `feedback` event, or one line.
    func feedback(_ call: String, _ feedback: CallFeedback) {
        if json {
            JSONEvents.emit("feedback", FeedbackPayload(call: call, rating: feedback.rating, issue: feedback.issue.rawValue))
        } else {
            note("call \(call.prefix(8)) rated \(feedback.rating)" + (feedback.issue == .noIssue ? "" : " (\(feedback.issue.words))"))
        }
    }
}

struct FeedbackPayload: Encodable {
    let call: String
    let rating: Int
    let issue: String
}
