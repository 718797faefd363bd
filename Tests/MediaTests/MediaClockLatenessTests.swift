import Foundation
import Media
import TestSupport
import Testing

/// A source that takes `delay` to give each frame, as a clock starved of CPU would.
final class SlowSource: AudioSource {
    let delay: useconds_t
    init(milliseconds: Int) { delay = useconds_t(milliseconds * 1000) }
    func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Bool {
        usleep(delay)
        frame.update(repeating: 0)
        return true
    }
}

/// The clock counts every session step and those whose frame left more than 10 ms after their
/// tick was due, which `parley answer --clock-interval` reports and `make bench` reads.
@Suite(.serialized) struct MediaClockLatenessTests {
    @Test func stepsThatFinishPastTenMillisecondsAreCountedLate() throws {
        let pair = try SessionPair(codec: .pcmu(), sourceA: SlowSource(milliseconds: 14), sourceB: SilenceSource(), secure: false)
        defer { pair.finish() }
        #expect(waitUntil(seconds: 10) { pair.clock.lateness.sessionTicks >= 40 })
        let lateness = pair.clock.lateness
        // A takes 14 ms: A is late on every tick, and so is B on the ticks that step it after A.
        #expect(lateness.lateSessionTicks * 5 >= lateness.sessionTicks * 2, "\(lateness)")
    }

    /// A step that ends more than a whole 20 ms frame after its tick was due counts as frame-late
    /// as well: the figure `make bench` ramps against (docs/performance.md).
    @Test func stepsThatFinishPastAWholeFrameAreCountedFrameLate() throws {
        let pair = try SessionPair(codec: .pcmu(), sourceA: SlowSource(milliseconds: 26), sourceB: SilenceSource(), secure: false)
        defer { pair.finish() }
        #expect(waitUntil(seconds: 10) { pair.clock.lateness.sessionTicks >= 40 })
        let lateness = pair.clock.lateness
        #expect(lateness.frameLateSessionTicks * 5 >= lateness.sessionTicks * 2, "\(lateness)")
        #expect(lateness.frameLateSessionTicks <= lateness.lateSessionTicks)
    }

    @Test func aQuickClockSendsOnTime() throws {
        let pair = try SessionPair(codec: .pcmu(), sourceA: SilenceSource(), sourceB: SilenceSource(), secure: false)
        defer { pair.finish() }
        #expect(waitUntil(seconds: 10) { pair.clock.lateness.sessionTicks >= 40 })
        let lateness = pair.clock.lateness
        #expect(lateness.lateSessionTicks * 4 < lateness.sessionTicks, "\(lateness)")
        #expect(lateness.frameLateSessionTicks <= lateness.lateSessionTicks)
        #expect(lateness.overruns == 0)
    }
}

/// A process's clocks tick at their own places in the 20 ms tick (shard k of K at k/K of it), so
/// their bursts of work do not all fall on the cores at once.
struct MediaClockPhaseTests {
    private func nanoseconds(_ time: timespec) -> Int { time.tv_sec * 1_000_000_000 + time.tv_nsec }

    @Test(arguments: [0.0, 0.25, 0.5, 0.75])
    func theFirstTickComesWithinATickAtTheClocksPlace(phase: Double) {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let first = nanoseconds(MediaClock.firstDeadline(after: now, phase: phase))
        let origin = nanoseconds(MediaClock.firstDeadline(after: now, phase: 0))
        #expect(first > nanoseconds(now))
        #expect(first - nanoseconds(now) <= 20_000_000)
        // Every clock of the process sits on one grid, `phase` of a tick apart.
        let apart = ((first - origin) % 20_000_000 + 20_000_000) % 20_000_000
        #expect(apart == Int(phase * 20_000_000))
    }
}
