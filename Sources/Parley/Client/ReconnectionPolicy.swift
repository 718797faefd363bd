/// How a client keeps its session and calls through network changes (docs/calls.md,
/// "Reconnection"). The defaults follow the Telnyx SDKs: a 60 s reconnect timeout, and socket
/// retries 1 s doubling to 30 s with ±25 % jitter.
public struct ReconnectionPolicy: Sendable, Equatable {
    /// Off: a dropped socket stays dropped and a failed media path ends its call.
    public var isEnabled = true
    /// How long a call may stay dropped or reconnecting before it ends with reconnect-timeout.
    public var reconnectTimeout: Duration = .seconds(60)
    /// The wait before the first retry of a socket that dropped; it doubles with each failure.
    public var initialDelay: Duration = .seconds(1)
    public var maximumDelay: Duration = .seconds(30)
    /// Each wait is moved by up to this fraction either way, so a fleet does not retry in step.
    public var jitter = 0.25
    /// Failed socket attempts in a row before the client gives up; 0 for no limit.
    public var maximumAttempts = 10
    /// How long the server may take to answer a `ping` for signalling to count as alive.
    public var probeTimeout: Duration = .seconds(2)
    /// Watch the host's addresses, links and routes (netlink) and act on a change at once.
    public var watchesNetwork = true
    /// The wait between media-recovery attempts for a call whose far end cannot renegotiate yet,
    /// and the longest wait between socket attempts while calls wait on the socket.
    public var retryInterval: Duration = .seconds(2)

    public init() {}

    /// The wait before socket attempt `attempt` (1 is the first retry); `random` in -1...1 picks
    /// where in the jitter band it falls. While calls wait on the socket (`callsWaiting`), each
    /// with its reconnect timeout running, the wait stops doubling at `retryInterval`: a wait of
    /// 8 or 16 s would let a call's timeout pass with the network long back and no attempt made.
    package func delay(beforeAttempt attempt: Int, random: Double, callsWaiting: Bool = false) -> Duration {
        let doublings = min(max(attempt - 1, 0), 30)
        let ceiling = callsWaiting ? min(maximumDelay, retryInterval) : maximumDelay
        let base = min(initialDelay * (1 << doublings), ceiling)
        let factor = 1 + jitter * min(max(random, -1), 1)
        return base * factor
    }
}
