import Media
import Parley

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
