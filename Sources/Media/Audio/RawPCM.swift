import Glibc

/// Signed 16-bit little-endian mono PCM at the session rate from a file descriptor (stdin).
/// Reads without blocking: what has not arrived by the tick is played as silence.
package final class RawPCMSource: AudioSource {
    private let descriptor: Int32
    private var ended = false
    /// A byte left over from an odd-length read.
    private var pendingByte: UInt8?

    package init(descriptor: Int32) {
        self.descriptor = descriptor
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) }
    }

    package func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Bool {
        frame.update(repeating: 0)
        guard !ended else { return false }
        let bytes = UnsafeMutableRawBufferPointer(frame)
        var filled = 0
        if let pendingByte {
            bytes[0] = pendingByte
            filled = 1
            self.pendingByte = nil
        }
        while filled < bytes.count {
            let count = Glibc.read(descriptor, bytes.baseAddress! + filled, bytes.count - filled)
            if count > 0 {
                filled += count
            } else {
                if count == 0 { ended = true }
                break
            }
        }
        if filled % 2 == 1 {
            pendingByte = bytes[filled - 1]
            bytes[filled - 1] = 0
        }
        return !ended || filled > 0
    }
}

/// Signed 16-bit little-endian mono PCM of the remote audio to a file descriptor (stdout).
/// A full pipe drops the frame rather than stalling the media clock.
final class RawPCMSink: AudioSink {
    private let descriptor: Int32
    private var closed = false
    private(set) var droppedFrames = 0

    init(descriptor: Int32) {
        self.descriptor = descriptor
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) }
    }

    func write(remote: UnsafeBufferPointer<Int16>, local: UnsafeBufferPointer<Int16>) {
        guard !closed, let base = remote.baseAddress else { return }
        let length = remote.count * 2
        if Glibc.write(descriptor, base, length) != length { droppedFrames += 1 }
    }

    func close() { closed = true }
}
