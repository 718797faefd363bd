import Locking

/// Seconds since creation on the monotonic clock: the `now` the dialect state machines take.
package struct ElapsedClock: Sendable {
    private let clock = ContinuousClock()
    private let origin: ContinuousClock.Instant

    package init() { origin = clock.now }

    package var seconds: Double { (clock.now - origin).inSeconds }
}
