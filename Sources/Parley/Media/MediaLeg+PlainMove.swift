import SDP

/// A classic SIP peer's re-offer that moves its media (docs/sip.md, "Media per peer"): a new
/// address or port on its c= and m= lines (or a=rtcp), after a transfer inside a PBX, a media
/// server taking over, or an address that changed.
extension MediaLeg {
    /// Aims the plain sockets at the address and port the re-offer names, when they differ from
    /// what they aim at, and lets symmetric RTP latch again on the peer's first packet from
    /// there. True when the media moved. A leg with ICE, or an unspecified address (an old-style
    /// hold, RFC 3264 §8.4), moves nothing.
    @discardableResult
    package func followPeer(reoffer text: String) throws(ParleyError) -> Bool {
        guard let plainSockets, let current = plainRemote, !stopped else { return false }
        let description = try Self.parse(text)
        guard let section = description.media.first(where: { $0.kind == "audio" && !$0.isRejected }),
            var moved = PlainRemoteTransport(section, session: description), moved.address != "0.0.0.0", moved.address != "::"
        else { return false }
        moved.rtcpMux = current.rtcpMux
        guard moved != current else { return false }
        do {
            try plainSockets.retarget(remoteAddress: moved.address, rtpPort: moved.rtpPort, rtcpAddress: moved.rtcpAddress, rtcpPort: moved.rtcpPort)
        } catch {
            throw .negotiation(error.description)
        }
        plainRemote = moved
        logger.info("media without ICE moved: RTP to \(moved.address):\(moved.rtpPort) (was \(current.address):\(current.rtpPort))")
        return true
    }
}
