/// The sending half of a secure channel: the outbound SRTP context (its own libsrtp session,
/// apart from the inbound one) and the transport. A media session takes it from its channel once
/// keys exist and uses it on the media clock thread alone, so protecting and sending a packet
/// never waits for the network thread, which keeps the channel (docs/performance.md, "The
/// session's two locks").
///
/// Not thread-safe: one thread at a time. Allocates nothing per packet.
package final class SRTPSender {
    /// Nil for unencrypted RTP, which leaves as it is.
    private let context: SRTPContext?
    private let transport: any MediaTransport
    /// Packets that could not be protected or that the transport refused.
    package private(set) var failures = 0

    init(context: SRTPContext?, transport: any MediaTransport) {
        self.context = context
        self.transport = transport
    }

    /// Protects the plain packet of `length` bytes at the start of `buffer` (which must have
    /// `SRTPContext.maximumTrailer` spare bytes) and sends it. False when the transport refused.
    @discardableResult
    package func send(_ buffer: UnsafeMutableRawBufferPointer, length: Int, isRTCP: Bool) -> Bool {
        guard let context else {
            guard transport.send(UnsafeRawBufferPointer(rebasing: buffer[0..<length])) else {
                failures += 1
                return false
            }
            return true
        }
        do {
            let protected = isRTCP ? try context.protectRTCP(buffer, length: length) : try context.protectRTP(buffer, length: length)
            guard transport.send(UnsafeRawBufferPointer(rebasing: buffer[0..<protected])) else {
                failures += 1
                return false
            }
            return true
        } catch {
            failures += 1
            return false
        }
    }
}
