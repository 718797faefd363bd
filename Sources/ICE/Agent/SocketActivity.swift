import CNice
import Foundation

/// When the socket under a selected pair last received anything: media, DTLS, or the STUN that
/// libnice reads and keeps to itself (consent answers, the peer's checks). libnice exposes no
/// such time, so the kernel is asked: for UDP, the receive timestamp of the last datagram read
/// from the socket (SIOCGSTAMP, `man 7 socket`); for TCP (TURN over TCP or TLS), the time since
/// data last arrived (`TCP_INFO`'s `tcpi_last_data_recv`, `man 7 tcp`).
///
/// Only on the network thread (it calls libnice).
struct SocketActivity {
    /// The last kernel timestamp seen per UDP socket: a new one means a datagram was read since.
    private var stamps: [Int32: Int64] = [:]

    /// SIOCGSTAMP from <asm-generic/sockios.h> (the old, native-`timeval` form on 64-bit
    /// Linux); its macro does not import into Swift.
    private static let receiveTimestampRequest: UInt = 0x8906

    /// The latest receive seen on the socket under `component`'s selected pair, or nil.
    /// `relayBase` is the local address of a relayed local candidate's base (libnice's
    /// `base_addr`); libnice hands out no socket for a relayed candidate, so over TURN/UDP its
    /// base is the component's UDP socket bound there, and over TCP or TLS it is one of the
    /// generation's connections to its TURN servers (`RelayStreams`).
    mutating func lastReceive(
        agent: OpaquePointer, stream: UInt32, component: Int, relayBase: SocketName?, relayStreams: inout RelayStreams?,
        now: ContinuousClock.Instant
    ) -> ContinuousClock.Instant? {
        guard let relayBase else {
            guard let socket = nice_agent_get_selected_socket(agent, stream, UInt32(component)) else { return nil }
            defer { g_object_unref(gpointer(socket)) }
            return lastDatagram(g_socket_get_fd(socket), now: now)
        }
        if let sockets = nice_agent_get_sockets(agent, stream, UInt32(component)) {
            defer { g_ptr_array_unref(sockets) }
            for index in 0..<Int(sockets.pointee.len) {
                guard let pointer = sockets.pointee.pdata[index] else { continue }
                let socket = pointer.assumingMemoryBound(to: GSocket.self)
                let descriptor = g_socket_get_fd(socket)
                if g_socket_get_socket_type(socket) == G_SOCKET_TYPE_DATAGRAM, SocketName.local(descriptor) == relayBase {
                    return lastDatagram(descriptor, now: now)
                }
            }
        }
        // With two components, each has its own connection but they are not told apart.
        return relayStreams?.descriptors().compactMap { lastData($0, now: now) }.max()
    }

    private mutating func lastDatagram(_ descriptor: Int32, now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        // The first call switches timestamps on for the socket (and answers ENOENT).
        var stamp = timeval()
        guard ioctl(descriptor, Self.receiveTimestampRequest, &stamp) == 0 else { return nil }
        let microseconds = Int64(stamp.tv_sec) * 1_000_000 + Int64(stamp.tv_usec)
        guard stamps[descriptor] != microseconds else { return nil }
        stamps[descriptor] = microseconds
        return now
    }

    private func lastData(_ descriptor: Int32, now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        var info = tcp_info()
        var length = socklen_t(MemoryLayout<tcp_info>.size)
        guard getsockopt(descriptor, Int32(IPPROTO_TCP), TCP_INFO, &info, &length) == 0 else { return nil }
        return now - .milliseconds(Int64(info.tcpi_last_data_recv))
    }
}
