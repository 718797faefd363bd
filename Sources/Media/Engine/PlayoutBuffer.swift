/// The received side's samples between the decoder and the sink: each tick takes `tickSamples`,
/// and what a decoded packet gave beyond them waits for the next tick. The tick's frame stays at
/// the head until the next tick starts, so the level meter reads it when asked, not every tick.
/// A session that does not decode keeps only the count of samples (`keepsSamples` false): its
/// playout runs on the same schedule, so its statistics read as if the audio had been played.
///
/// Owned by one session and used under its clock lock; its buffer is allocated once, here.
final class PlayoutBuffer {
    let tickSamples: Int
    let keepsSamples: Bool
    private let capacity: Int
    private let samples: UnsafeMutableBufferPointer<Int16>
    private(set) var count = 0
    /// The last tick's frame is at the head.
    private var holdsPlayedFrame = false

    /// `capacity`: the most samples it holds, what is left from a tick and a decoded packet.
    init(tickSamples: Int, capacity: Int, keepsSamples: Bool) {
        self.tickSamples = tickSamples
        self.capacity = capacity
        self.keepsSamples = keepsSamples
        samples = .allocate(capacity: keepsSamples ? capacity : 1)
        samples.initialize(repeating: 0)
    }

    deinit {
        samples.deallocate()
    }

    /// The tick needs more samples.
    var needsSamples: Bool { count < tickSamples }

    /// Drops the frame played last tick, keeping what the decoder gave beyond it.
    func startTick() {
        guard holdsPlayedFrame else { return }
        holdsPlayedFrame = false
        let left = count - tickSamples
        if keepsSamples, left > 0 { samples.baseAddress!.update(from: samples.baseAddress!.advanced(by: tickSamples), count: left) }
        count = max(0, left)
    }

    /// Adds `added` samples from `source` (read only when it keeps samples), as many as fit.
    func append(_ source: UnsafePointer<Int16>, count added: Int) {
        let taken = min(added, capacity - count)
        guard taken > 0 else { return }
        if keepsSamples { samples.baseAddress!.advanced(by: count).update(from: source, count: taken) }
        count += taken
    }

    /// Fills the rest of the tick with silence.
    func padWithSilence() {
        guard needsSamples else { return }
        if keepsSamples { samples.baseAddress!.advanced(by: count).update(repeating: 0, count: tickSamples - count) }
        count = tickSamples
    }

    /// The tick's frame, played: it stays at the head until the next `startTick`. `silenced`
    /// plays silence instead (a held call).
    func finishTick(silenced: Bool) -> UnsafeBufferPointer<Int16> {
        holdsPlayedFrame = true
        guard keepsSamples else { return UnsafeBufferPointer(rebasing: samples[0..<0]) }
        if silenced { samples.baseAddress!.update(repeating: 0, count: tickSamples) }
        return UnsafeBufferPointer(rebasing: samples[0..<tickSamples])
    }

    /// RMS of the frame played last, 0…1; 0 before one was played or when samples are not kept.
    var level: Double {
        guard keepsSamples, holdsPlayedFrame else { return 0 }
        return UnsafeBufferPointer(rebasing: samples[0..<tickSamples]).rmsLevel
    }
}
