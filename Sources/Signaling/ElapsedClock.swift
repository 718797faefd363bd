/// Seconds since creation on the monotonic clock: the `now` the dialect state machines take.
public struct ElapsedClock: Sendable {
    private let clock = ContinuousClock()
    private let origin: ContinuousClock.Instant

    public init() { origin = clock.now }

    public var seconds: Double { (clock.now - origin).inSeconds }
}
