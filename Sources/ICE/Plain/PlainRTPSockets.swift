import CNice
import Foundation
import Synchronization

/// Media without ICE, for a classic SIP peer (a desk phone, a trunk): one UDP socket for RTP on
/// an even port and one for RTCP on the next, bound on the address the call's interfaces give
/// (`--interface`), read on the shard's network thread as a GLib watch of its loop, as libnice's
/// sockets are: no thread of their own (docs/media.md, "Media without ICE").
///
/// Symmetric RTP (RFC 4961): packets go to the address the peer's SDP names until the first
/// datagram the receive handler accepts (RTP or RTCP that parsed, or that SRTP authenticated)
/// arrives; the socket is then connected to that datagram's source, so replies follow a peer
/// behind NAT and the kernel drops what any other address sends.
///
/// `send` runs on the media clock's thread and reads only constants and atomics; everything else
/// runs on the loop's thread. Unchecked: per-packet fields are constants or atomics, the rest is
/// confined to the network loop thread (asserted in debug builds).
package final class PlainRTPSockets: @unchecked Sendable {
    package let localAddress: String
    package let rtpPort: Int
    package var rtcpPort: Int { rtpPort + 1 }
    private let loop: NetworkLoop
    private let rtp: PlainUDPSocket
    private let rtcp: PlainUDPSocket
    private let rtcpMuxed = Atomic<Bool>(false)
    private let closed = Atomic<Bool>(false)
    /// Loop thread only: what takes each datagram; true when it was media worth latching on.
    private var onReceive: (@Sendable (UnsafeRawBufferPointer) -> Bool)?
    /// Where datagrams are read into, allocated once, last in `init` (nothing to free on a throw).
    private let buffer: UnsafeMutableRawBufferPointer

    /// Binds the pair on the first address of `allowedInterfaces` (IPv4 first; every interface
    /// but loopback when empty, as ICE gathers).
    package init(allowedInterfaces: [String], ipv6: Bool, loop: NetworkLoop) throws(PlainRTPError) {
        let addresses: [String]
        do {
            addresses = try LocalAddresses.list(allowedInterfaces: allowedInterfaces, ipv6: ipv6)
        } catch {
            throw .noAddress(reason: error.description)
        }
        guard let address = addresses.first(where: { !$0.contains(":") }) ?? addresses.first else {
            throw .noAddress(reason: "no interface is up among \(allowedInterfaces.isEmpty ? "the non-loopback ones" : allowedInterfaces.joined(separator: ", "))")
        }
        let pair = try PlainUDPSocket.evenPair(on: address)
        rtp = pair.rtp
        rtcp = pair.rtcp
        rtpPort = pair.port
        localAddress = address
        self.loop = loop
        buffer = .allocate(byteCount: 2048, alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// Where media goes until the peer is latched, and who takes what arrives. Addresses are
    /// numeric, as an SDP's c= line gives them; `rtcpMux` sends RTCP on the RTP socket.
    package func start(
        remoteAddress: String, rtpPort: Int, rtcpAddress: String, rtcpPort: Int, rtcpMux: Bool,
        onReceive: @escaping @Sendable (UnsafeRawBufferPointer) -> Bool
    ) throws(PlainRTPError) {
        try rtp.setDestination(remoteAddress, port: rtpPort)
        if !rtcpMux { try rtcp.setDestination(rtcpAddress, port: rtcpPort) }
        rtcpMuxed.store(rtcpMux, ordering: .releasing)
        loop.perform { [self] in
            self.onReceive = onReceive
            rtp.watch(on: loop) { socket in self.drain(socket) }
            if !rtcpMux { rtcp.watch(on: loop) { socket in self.drain(socket) } }
        }
    }

    /// One datagram from the media clock's thread: RTCP (RFC 5761 §4: packet types 192-223)
    /// on the RTCP socket unless muxed, everything else on the RTP socket. Allocates nothing.
    package func send(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard !closed.load(ordering: .acquiring) else { return false }
        let isRTCP = bytes.count > 1 && (192...223).contains(bytes[1])
        let socket = isRTCP && !rtcpMuxed.load(ordering: .acquiring) ? rtcp : rtp
        return socket.send(bytes)
    }

    /// The peer's re-offer moved its media: both sockets aim at the new address and port, and
    /// symmetric RTP latches again on the first packet accepted from wherever it comes. RTCP
    /// multiplexing stays as the call negotiated it.
    package func retarget(remoteAddress: String, rtpPort: Int, rtcpAddress: String, rtcpPort: Int) throws(PlainRTPError) {
        try rtp.reaim(remoteAddress, port: rtpPort)
        if !rtcpMuxed.load(ordering: .acquiring) { try rtcp.reaim(rtcpAddress, port: rtcpPort) }
        loop.perform { [self] in
            guard !closed.load(ordering: .acquiring) else { return }
            rtp.unlatch()
            rtcp.unlatch()
        }
    }

    /// The port RTP was latched to, for tests; nil before the first accepted packet.
    package var latchedRTPPeerPort: Int? { rtp.latchedPeerPort }

    /// Stops reading and closes both sockets on the loop's thread; `send` refuses from now on.
    package func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        loop.perform { [self] in
            onReceive = nil
            rtp.close(on: loop)
            rtcp.close(on: loop)
        }
    }

    /// Reads what is pending (at most 64 datagrams a wake, as the SIP flow does); false removes
    /// the watch.
    private func drain(_ socket: PlainUDPSocket) -> Bool {
        loop.assertOnLoopThread("reading a plain RTP socket")
        for _ in 0..<64 {
            guard !closed.load(ordering: .acquiring) else { return false }
            var source = sockaddr_storage()
            var sourceLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let count = withUnsafeMutablePointer(to: &source) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    recvfrom(socket.descriptor, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT), $0, &sourceLength)
                }
            }
            if count < 0 {
                // ECONNREFUSED: an ICMP error for an earlier send; the socket goes on.
                return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ECONNREFUSED || errno == EHOSTUNREACH
            }
            guard count > 0, let onReceive else { continue }
            let accepted = onReceive(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            if accepted && !socket.isLatched { socket.latch(to: &source, length: sourceLength) }
        }
        return true
    }
}

/// Why a transport without ICE could not be made or aimed.
package enum PlainRTPError: Error, Sendable, Equatable, CustomStringConvertible {
    case noAddress(reason: String)
    case socket(operation: String, errno: Int32)
    /// No even port whose next port was free, after this many tries.
    case noPortPair(tries: Int)
    case badRemoteAddress(String)

    package var description: String {
        switch self {
        case .noAddress(let reason): "no local address for RTP without ICE: \(reason)"
        case .socket(let operation, let code): "RTP socket \(operation) failed: \(String(cString: strerror(code)))"
        case .noPortPair(let tries): "no free pair of UDP ports (even for RTP, the next for RTCP) after \(tries) tries"
        case .badRemoteAddress(let address): "the peer's media address \(address) is not a numeric IPv4 or IPv6 address of our family"
        }
    }
}
