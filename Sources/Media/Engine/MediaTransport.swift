/// The seam between media and whatever carries its datagrams (the ICE module's selected pair,
/// or a plain UDP socket in tests). Media never knows which.
///
/// The transport calls `MediaSession.receive(_:)` on its network thread for every datagram that
/// is not STUN; media calls `send` from the media clock thread (or the network thread for DTLS
/// flights), so `send` must be thread-safe, must not block, and should not allocate.
package protocol MediaTransport: AnyObject, Sendable {
    /// Sends one datagram. False when it could not be sent; media counts it and carries on.
    func send(_ bytes: UnsafeRawBufferPointer) -> Bool
}
