import Locking
import Media

/// Keeps every datagram sent through it, for a test of one layer (a channel, a session) alone.
final class SentDatagrams: MediaTransport, @unchecked Sendable {
    private let sent = Lock<[[UInt8]]>([])
    func send(_ bytes: UnsafeRawBufferPointer) -> Bool {
        sent.withLock { $0.append(Array(bytes)) }
        return true
    }
    var all: [[UInt8]] { sent.withLock { $0 } }
    var last: [UInt8]? { sent.withLock { $0.last } }
}
