import Locking

/// How this side ended a call it was testing (`--duration`, Ctrl-C, `q`, a `hangup` command):
/// a tester cut short this way is `aborted`, not failed by the far end (docs/bots.md,
/// "Verdicts"). The first reason recorded stands.
final class LocalStop: Sendable {
    private let why = Lock<String?>(nil)

    func record(_ reason: String) {
        why.withLock { if $0 == nil { $0 = reason } }
    }

    var reason: String? { why.withLock { $0 } }
}
