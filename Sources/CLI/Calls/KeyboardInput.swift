import Foundation

/// Single keys from a terminal on standard input, without waiting for Enter. Restores the
/// terminal when stopped. Nothing happens when standard input is not a terminal.
/// Unchecked: the terminal state is touched by `start`/`stop` from the command's one task and by the read source on its queue, never both at once.
final class KeyboardInput: @unchecked Sendable {
    let keys: AsyncStream<Character>
    private let continuation: AsyncStream<Character>.Continuation
    private var saved = termios()
    private var source: DispatchSourceRead?
    private var active = false

    init() {
        (keys, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(32))
    }

    /// Starts reading keys; false when standard input is no terminal, and no key will come.
    @discardableResult
    func start() -> Bool {
        guard isatty(0) == 1, tcgetattr(0, &saved) == 0 else {
            continuation.finish()
            return false
        }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { bytes in
            bytes[Int(VMIN)] = 1
            bytes[Int(VTIME)] = 0
        }
        tcsetattr(0, TCSANOW, &raw)
        active = true
        let source = DispatchSource.makeReadSource(fileDescriptor: 0, queue: .global())
        let continuation = continuation
        source.setEventHandler {
            var byte: UInt8 = 0
            guard read(0, &byte, 1) == 1 else {
                continuation.finish()
                return
            }
            continuation.yield(Character(Unicode.Scalar(byte)))
        }
        source.resume()
        self.source = source
        return true
    }

    func stop() {
        source?.cancel()
        source = nil
        if active { tcsetattr(0, TCSANOW, &saved) }
        active = false
        continuation.finish()
    }
}
