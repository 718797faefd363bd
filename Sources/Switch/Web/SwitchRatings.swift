import Foundation
import Locking
import Signaling

/// The ratings clients sent (`SwitchFeedback`), as "/feedback.json" lists them beside
/// "/online.json" (docs/browser.md): the newest 1000, oldest first, each with its call id, the
/// login that rated it, the rating and the issue. The switch's actor adds; the HTTP service
/// thread reads without waiting on the actor.
final class SwitchRatings: Sendable {
    static let kept = 1000
    private let ratings = Lock<[SwitchFeedback]>([])

    func add(_ rating: SwitchFeedback) {
        ratings.withLock { ratings in
            ratings.append(rating)
            if ratings.count > Self.kept { ratings.removeFirst(ratings.count - Self.kept) }
        }
    }

    var resource: HTTPResource {
        HTTPResource(path: "/feedback.json", contentType: "application/json; charset=utf-8", generator: HTTPGenerator { [self] in
            let list = ratings.withLock { $0 }
            // Strings and numbers encode without fail; the fallback only keeps the reply well-formed.
            let body = (try? JSONEncoder().encode(["feedback": list])).map { Array($0) } ?? Array(#"{"feedback":[]}"#.utf8)
            return HTTPReply(status: 200, body: body)
        })
    }
}
