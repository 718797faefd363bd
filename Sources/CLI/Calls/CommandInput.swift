import Foundation

/// Commands on standard input, one per line, when it is not a terminal: how scripts steer a
/// running call (`dtmf 123`, `hold`, `unhold`, `mute`, `unmute`, `hangup`).
/// Unchecked: `pending` is touched only by the read source's handler on its serial queue.
final class CommandInput: @unchecked Sendable {
    let lines: AsyncStream<String>
    private let continuation: AsyncStream<String>.Continuation
    private var source: DispatchSourceRead?
    private var pending: [UInt8] = []

    /// The longest command line accepted; longer input is dropped up to the next newline.
    static let maximumLine = 256

    init() {
        (lines, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
    }

    func start() {
        guard isatty(0) == 0 else {
            continuation.finish()
            return
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: 0, queue: DispatchQueue(label: "parley.commands"))
        source.setEventHandler { [weak self] in self?.readAvailable() }
        source.resume()
        self.source = source
    }

    func stop() {
        source?.cancel()
        source = nil
        continuation.finish()
    }

    private func readAvailable() {
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = read(0, &buffer, buffer.count)
        guard count > 0 else {
            source?.cancel()
            continuation.finish()
            return
        }
        for byte in buffer[0..<count] {
            if byte == 0x0A {
                let line = String(decoding: pending, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                pending = []
                if !line.isEmpty { continuation.yield(line) }
            } else if pending.count < Self.maximumLine {
                pending.append(byte)
            }
        }
    }
}
