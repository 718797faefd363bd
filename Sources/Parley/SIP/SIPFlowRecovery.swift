import Signaling

/// A phone's side of keeping its flow (docs/sip.md, "Keeping calls"): how a new flow is opened,
/// whether one is being opened, how long to wait between attempts, and the network watch that
/// sees our address go. A value the phone's actor keeps.
struct SIPFlowRecovery {
    /// How the phone's flows are opened (TLS verification and the rest), for the next one.
    let options: SIPFlowOptions
    /// Off (`--no-reconnect`): a failed path or flow ends its calls, as nothing is tried.
    var enabled = true
    /// How long each call may stay dropped or reconnecting before it ends.
    var reconnectTimeout: Duration = .seconds(60)
    /// Attempts before the calls end and the phone gives up.
    var attempts = 6
    /// The wait before the first attempt, doubling up to `maximumDelay`.
    var firstDelay: Duration = .milliseconds(250)
    var maximumDelay: Duration = .seconds(8)
    /// A new flow is being opened: a call's lost path waits for it instead of re-INVITEing on the old one.
    private(set) var recovering = false
    /// The phone closed for good, or gave up: nothing more is attempted.
    private(set) var stopped = false
    private(set) var watch: NetworkWatch?
    /// The flow an attempt is opening and registering from: the phone closes it when it closes,
    /// so that no flow outlives the phone while a REGISTER on it waits for its timeout.
    private(set) var opening: SIPEndpoint?

    init(options: SIPFlowOptions) {
        self.options = options
    }

    /// Starts a recovery; false while one runs or after the phone stopped.
    mutating func begin() -> Bool {
        guard enabled, !recovering, !stopped else { return false }
        recovering = true
        return true
    }

    mutating func end() {
        recovering = false
    }

    /// The wait before attempt `attempt` (1 is the first).
    func delay(before attempt: Int) -> Duration {
        var delay = firstDelay
        for _ in 1..<max(attempt, 1) { delay = min(delay * 2, maximumDelay) }
        return delay
    }

    mutating func watching(_ watch: NetworkWatch?) {
        self.watch = watch
    }

    mutating func attempting(_ endpoint: SIPEndpoint?) {
        opening = endpoint
    }

    /// The phone closes or gave up: the watch and the flow being opened are handed back to be
    /// closed.
    mutating func stop() -> (watch: NetworkWatch?, opening: SIPEndpoint?) {
        stopped = true
        recovering = false
        defer {
            watch = nil
            opening = nil
        }
        return (watch, opening)
    }
}
