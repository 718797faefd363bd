import Media

/// Passes through the first `samples` samples of another source, then ends.
final class BoundedSource: AudioSource {
    private let inner: any AudioSource
    private(set) var remaining: Int

    init(_ inner: any AudioSource, samples: Int) {
        self.inner = inner
        remaining = samples
    }

    func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Bool {
        guard remaining > 0 else {
            frame.update(repeating: 0)
            return false
        }
        let count = min(frame.count, remaining)
        // The inner source fills the whole frame; what lies past the end becomes silence.
        _ = inner.read(into: frame)
        for index in count..<frame.count { frame[index] = 0 }
        remaining -= count
        return true
    }
}

/// Plays bounded sources back to back, sample-exact across frame boundaries.
final class PromptSequenceSource: AudioSource {
    private let parts: [BoundedSource]
    private var current = 0

    init(_ parts: [BoundedSource]) { self.parts = parts }

    func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Bool {
        var filled = 0
        while filled < frame.count, current < parts.count {
            let part = parts[current]
            let count = min(frame.count - filled, part.remaining)
            if count > 0 {
                _ = part.read(into: UnsafeMutableBufferPointer(rebasing: frame[filled..<(filled + count)]))
                filled += count
            }
            if part.remaining == 0 { current += 1 }
        }
        for index in filled..<frame.count { frame[index] = 0 }
        return filled > 0 || frame.isEmpty
    }
}
