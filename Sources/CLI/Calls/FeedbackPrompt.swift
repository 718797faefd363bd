import Foundation
import Parley

/// `parley call --feedback` once the call ended on a terminal: "rate this call 1-5, Enter to
/// skip", then what was wrong, as Exotel's SDK asks. Lines, not keys: the terminal is back in
/// its normal mode. A wrong answer is said and asked again, three times at most.
enum FeedbackPrompt {
    static func ask(presenter: CallPresenter, readLine: () -> String? = { Swift.readLine() }) -> CallFeedback? {
        guard let rating = askRating(presenter: presenter, readLine: readLine) else { return nil }
        let issues = CallFeedback.Issue.allCases.enumerated().map { "\($0.offset + 1) \($0.element.words)" }.joined(separator: ", ")
        presenter.note("what was wrong? \(issues)")
        for _ in 0..<3 {
            presenter.prompt("issue 1-\(CallFeedback.Issue.allCases.count), Enter for no issue: ")
            guard let line = readLine() else { return try? CallFeedback(rating: rating) }
            if line.trimmingCharacters(in: .whitespaces).isEmpty { return try? CallFeedback(rating: rating) }
            do throws(ParleyError) {
                return try CallFeedback(rating: rating, issue: CallFeedback.Issue(parsing: line))
            } catch {
                presenter.note(error.message)
            }
        }
        return try? CallFeedback(rating: rating)
    }

    private static func askRating(presenter: CallPresenter, readLine: () -> String?) -> Int? {
        for _ in 0..<3 {
            presenter.prompt("rate this call 1-5, Enter to skip: ")
            guard let line = readLine(), !line.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
            do throws(ParleyError) {
                return try CallFeedback(rating: line, issue: nil).rating
            } catch {
                presenter.note(error.message)
            }
        }
        return nil
    }
}
