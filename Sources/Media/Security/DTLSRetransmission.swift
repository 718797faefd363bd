import COpenSSL

/// When a DTLS handshake flight is sent again if the peer's answer has not come: after 100 ms,
/// then twice as long each time (RFC 9147 §5.8.2; RFC 6347 and OpenSSL's default start at 1 s).
///
/// A flight lost or dropped on arrival (a ClientHello that reaches the peer before it has the
/// answer's fingerprint, a socket buffer that overflowed on a busy machine) otherwise costs 1 s,
/// then 2 s, then 4 s, and one call in twenty took seconds to set up under load
/// (docs/performance.md, "Call setup"). A flight is a few hundred bytes once per call, so sending
/// one twice on a slow path costs nothing worth saving.
package enum DTLSRetransmission {
    package static let initial = Duration.milliseconds(100)
    /// OpenSSL's own ceiling; the handshake deadline (10 s) ends a call long before it matters.
    package static let maximum = Duration.seconds(60)

    /// The wait before the next retransmission, given the one before (zero: the flight's first).
    package static func next(after previous: Duration) -> Duration {
        previous <= .zero ? initial : min(previous * 2, maximum)
    }

    /// OpenSSL's `DTLS_timer_cb`: microseconds in and out.
    static let openSSLTimer: DTLS_timer_cb = { _, previousMicroseconds in
        let next = DTLSRetransmission.next(after: .microseconds(previousMicroseconds))
        return UInt32(next.components.seconds * 1_000_000 + next.components.attoseconds / 1_000_000_000_000)
    }
}
