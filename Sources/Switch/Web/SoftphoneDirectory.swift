import Foundation
import Locking
import Signaling

/// Who is logged in, as the softphone's "/online.json" tells a visitor (docs/browser.md): login
/// names only, never a password, token or address. The switch's actor writes it after each
/// event; the HTTP service thread reads it without waiting on the actor.
final class SoftphoneDirectory: Sendable {
    private let logins = Lock<[String]>([])

    func update(_ online: [String]) {
        let unique = Array(Set(online)).sorted()
        logins.withLock { current in if current != unique { current = unique } }
    }

    var resource: HTTPResource {
        HTTPResource(path: "/online.json", contentType: "application/json; charset=utf-8", generator: HTTPGenerator { [self] in
            let names = logins.withLock { $0 }
            // Encoding strings cannot fail; the fallback only keeps the reply well-formed.
            let body = (try? JSONEncoder().encode(["online": names])).map { Array($0) } ?? Array(#"{"online":[]}"#.utf8)
            return HTTPReply(status: 200, body: body)
        })
    }
}
