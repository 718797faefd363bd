/// The sending side's samples between the source and the encoder: one tick read from the source
/// each time (silence when muted), cut into the packet's frames, which may be longer than a tick
/// (40 or 60 ms packets) or shorter (10 ms). Keeps the last tick as read for a stereo recording's
/// other channel and the level meter.
///
/// Owned by one session and used under its clock lock; its buffers are allocated once, here.
final class CaptureBuffer {
    let tickSamples: Int
    let frameSamples: Int
    private let pending: UnsafeMutableBufferPointer<Int16>
    private var pendingCount = 0
    private let local: UnsafeMutableBufferPointer<Int16>

    init(tickSamples: Int, frameSamples: Int) {
        self.tickSamples = tickSamples
        self.frameSamples = frameSamples
        pending = .allocate(capacity: frameSamples + tickSamples)
        pending.initialize(repeating: 0)
        local = .allocate(capacity: tickSamples)
        local.initialize(repeating: 0)
    }

    deinit {
        pending.deallocate()
        local.deallocate()
    }

    /// The last tick we sent, as read.
    var localFrame: UnsafeBufferPointer<Int16> { UnsafeBufferPointer(local) }

    /// Reads a tick from `source` and hands `send` every whole frame there is, oldest first.
    func capture(from source: any AudioSource, muted: Bool, send: (UnsafeBufferPointer<Int16>) -> Void) {
        let tick = UnsafeMutableBufferPointer(rebasing: pending[pendingCount..<(pendingCount + tickSamples)])
        _ = source.read(into: tick)
        if muted { tick.update(repeating: 0) }
        local.baseAddress!.update(from: tick.baseAddress!, count: tickSamples)
        pendingCount += tickSamples
        while pendingCount >= frameSamples {
            send(UnsafeBufferPointer(rebasing: pending[0..<frameSamples]))
            let left = pendingCount - frameSamples
            if left > 0 { pending.baseAddress!.update(from: pending.baseAddress!.advanced(by: frameSamples), count: left) }
            pendingCount = left
        }
    }
}
