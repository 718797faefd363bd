/// When a media session runs and when its next RTCP report is due: it runs from `start` to
/// `stop`, each once; the first report goes half a second after the channel is secured, then one
/// every `rtcpInterval`; a new DTLS association waits for its own keys again.
///
/// A value the session keeps under its clock lock.
struct SessionSchedule {
    static let firstReportDelay = Duration.milliseconds(500)

    let rtcpInterval: Duration
    private(set) var started = false
    private(set) var stopped = false
    /// Nil until the channel has keys.
    private(set) var nextReport: ContinuousClock.Instant?

    init(rtcpInterval: Duration) {
        self.rtcpInterval = rtcpInterval
    }

    /// Ticks do something: started and not stopped.
    var isRunning: Bool { started && !stopped }

    /// True the first time only.
    mutating func start() -> Bool {
        defer { started = true }
        return !started
    }

    /// True the first time only.
    mutating func stop() -> Bool {
        defer { stopped = true }
        return !stopped
    }

    /// The channel has keys: reports start soon.
    mutating func secured(at now: ContinuousClock.Instant) {
        nextReport = now + Self.firstReportDelay
    }

    /// A new association: no report until it has keys.
    mutating func securityReplaced() {
        nextReport = nil
    }

    /// Whether a report is due at `now`; when it is, the next one is scheduled.
    mutating func reportDue(at now: ContinuousClock.Instant) -> Bool {
        guard let nextReport, now >= nextReport else { return false }
        self.nextReport = now + rtcpInterval
        return true
    }
}
