/// The highest Opus complexity a media clock lets its sessions' encoders use, from how much of
/// each 20 ms tick the clock spends stepping them and whether their frames leave late. Encoders are
/// most of a tick's work when every call encodes its own audio (agent calls, live sources): at
/// complexity 9 one costs about 18 ms of CPU per call-second here, so a hundred want two cores.
/// A frame that leaves a tick late is heard as a gap, a lower complexity is not: so while the
/// work nears the tick the ceiling steps down, and once there is room again it climbs back, more
/// slowly, to what the call asked for. libwebrtc lowers its encoders' effort on CPU overuse in
/// the same spirit (docs/media.md, "Opus complexity under load").
package struct EncoderLoadGovernor: Sendable, Equatable {
    package static let highest = OpusSettings.complexityRange.upperBound
    package static let lowest = OpusSettings.complexityRange.lowerBound

    /// A smoothed share of the tick above this (or a late tick) steps the ceiling down; below
    /// `roomyShare` for `ticksBeforeRaise` ticks in a row steps it up. The gap between the two
    /// keeps one step from undoing the other: a step is worth roughly a tenth of the encoders' work.
    static let busyShare = 0.45
    static let roomyShare = 0.25
    /// At most one step down per 200 ms, so one step's effect shows in the average before the next;
    /// up only after 3 s of room.
    static let ticksBetweenLowerings = 10
    static let ticksBeforeRaise = 150
    /// Weight of the newest tick in the average: about 8 ticks (160 ms) of memory.
    static let smoothing = 0.125

    package private(set) var ceiling: Int
    /// The smoothed share of the tick spent stepping sessions (0 idle, 1 the whole tick).
    package private(set) var busy = 0.0
    private var ticksSinceLowering = Int.max / 2
    private var roomyTicks = 0

    /// A call that asked for a fixed complexity ignores the ceiling (`followsClockComplexity`,
    /// `--fixed-opus-complexity`); the clock keeps one governor for all its calls.
    package init() {
        ceiling = Self.highest
    }

    /// One tick: `workNanoseconds` from the clock's wake to its last session stepped, `late`
    /// whether any session sent its frame more than 10 ms after the tick was due (the clock did
    /// not get the CPU it needed, whoever took it).
    package mutating func record(workNanoseconds: Int, tickNanoseconds: Int, late: Bool) {
        let share = Double(max(0, workNanoseconds)) / Double(tickNanoseconds)
        busy += (share - busy) * Self.smoothing
        ticksSinceLowering += 1
        if late || busy > Self.busyShare {
            roomyTicks = 0
            if ceiling > Self.lowest, ticksSinceLowering >= Self.ticksBetweenLowerings {
                ceiling -= 1
                ticksSinceLowering = 0
            }
            return
        }
        roomyTicks = busy < Self.roomyShare ? roomyTicks + 1 : 0
        if roomyTicks >= Self.ticksBeforeRaise, ceiling < Self.highest {
            ceiling += 1
            roomyTicks = 0
        }
    }
}
