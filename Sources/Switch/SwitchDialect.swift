/// The method names a client speaks: Telnyx's `telnyx_rtc.*` or FreeSWITCH's `verto.*`. The
/// switch answers each client in its own, so one call may join a client of each
/// (docs/verto-protocol.md §14).
enum SwitchDialect: Sendable, Equatable {
    /// Telnyx's SDKs, and Parley's client by default.
    case telnyx
    /// FreeSWITCH's verto.js, and Parley's client with `methodPrefix: "verto"`.
    case verto

    var prefix: String {
        switch self {
        case .telnyx: "telnyx_rtc."
        case .verto: "verto."
        }
    }

    /// The dialect a method is spelled in (none for `login`, which has no prefix in either) and
    /// its name without the prefix.
    static func parse(_ method: String) -> (dialect: SwitchDialect?, name: String) {
        for dialect in [SwitchDialect.telnyx, .verto] where method.hasPrefix(dialect.prefix) {
            return (dialect, String(method.dropFirst(dialect.prefix.count)))
        }
        return (nil, method)
    }

    /// Whether an unanswered ping means a dead socket. Telnyx's SDKs answer the server's ping;
    /// verto.js answers no request without a call id, and FreeSWITCH's `verto.ping` waits for no
    /// answer: such a socket's death is left to WebSocket pings and TCP.
    var answersPings: Bool { self == .telnyx }
}
