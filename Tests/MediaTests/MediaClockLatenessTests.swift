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

    /// A clock sends for every session before it plays out for any: A's frame does not wait for
    /// the playout of B (stepped first: it joined the clock first), however long that takes
    /// (here 14 ms of the 20).
    @Test func everySessionSendsBeforeAnyPlaysOut() throws {
        let tick = 20_000_000
        let timesA = TickTimeSource()
        let pair = try SessionPair(codec: .pcmu(), sourceA: timesA, sourceB: SilenceSource(), secure: false, playoutDelayBMilliseconds: 14)
        defer { pair.finish() }
        #expect(waitUntil(seconds: 10) { timesA.readTimes.count >= 50 })
        let place = MediaClock.processPhaseNanoseconds
        let steps = timesA.readTimes.dropFirst(5)
        let early = steps.filter { time in ((time - place) % tick + tick) % tick <= 5_000_000 }
        #expect(early.count * 2 >= steps.count, "\(early.count) of \(steps.count) of A's frames read within 5 ms of the tick")
    }

    /// A clock held up far past its catch-up (here 150 ms a tick, as under a CPU quota) gives up
    /// the lost ticks; each counts as a frame-late step for every session, so its lateness says
    /// that most frames never left rather than that the few it sent were late.
    @Test func ticksAStalledClockGivesUpCountAsFrameLate() throws {
        let pair = try SessionPair(codec: .pcmu(), sourceA: SlowSource(milliseconds: 150), sourceB: SilenceSource(), secure: false)
        defer { pair.finish() }
        #expect(waitUntil(seconds: 10) { pair.clock.overruns >= 2 })
        let start = (instant: ContinuousClock.now, lateness: pair.clock.lateness)
        #expect(waitUntil(seconds: 10) { pair.clock.overruns >= start.lateness.overruns + 4 })
        let elapsed = (ContinuousClock.now - start.instant) / .milliseconds(20)
        let lateness = pair.clock.lateness
        let steps = lateness.sessionTicks - start.lateness.sessionTicks
        let frameLate = lateness.frameLateSessionTicks - start.lateness.frameLateSessionTicks
        // Two sessions for every 20 ms that passed, less the last stall not yet given up.
        #expect(Double(steps) >= 2 * (elapsed - 8) * 0.8, "\(steps) steps counted in \(elapsed) ticks' time")
        #expect(frameLate * 10 >= steps * 9, "\(frameLate) of \(steps) steps frame-late")
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

/// Notes the CLOCK_MONOTONIC time of every frame the session reads: when its clock stepped it.
final class TickTimeSource: AudioSource {
    private let lock = NSLock()
    private var times: [Int] = []

    var readTimes: [Int] { lock.withLock { times } }

    func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        lock.withLock { times.append(now.tv_sec * 1_000_000_000 + now.tv_nsec) }
        frame.update(repeating: 0)
        return true
    }
}

/// A process's clocks tick at their own places in the 20 ms tick (shard k of K at k/K of it), so
/// their bursts of work do not all fall on the cores at once.
@Suite(.serialized) struct MediaClockPhaseTests {
    /// Three real clocks at 0, a quarter and a half of the tick: most of each one's steps fall
    /// within 3 ms of its place on the process's grid (a wake a little late, or a slow moment of
    /// the machine, moves a few).
    @Test func clocksTickAtTheirPlacesOnTheProcesssGrid() throws {
        let tick = 20_000_000
        var pairs: [(SessionPair, TickTimeSource, Double)] = []
        defer { for (pair, _, _) in pairs { pair.finish() } }
        for phase in [0.0, 0.25, 0.5] {
            let source = TickTimeSource()
            pairs.append((try SessionPair(codec: .pcmu(), sourceA: source, sourceB: SilenceSource(), secure: false, clockPhase: phase), source, phase))
        }
        for (_, source, phase) in pairs {
            #expect(waitUntil(seconds: 10) { source.readTimes.count >= 50 }, "phase \(phase)")
            let place = (MediaClock.processPhaseNanoseconds + Int(phase * Double(tick))) % tick
            let steps = source.readTimes.dropFirst(5)
            let near = steps.filter { time in
                let off = ((time - place) % tick + tick) % tick
                return min(off, tick - off) <= 3_000_000
            }
            #expect(near.count * 2 >= steps.count, "phase \(phase): \(near.count) of \(steps.count) steps within 3 ms of \(place) ns into the tick")
        }
    }

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
