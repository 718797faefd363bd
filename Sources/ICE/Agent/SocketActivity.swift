import CNice
import Foundation

/// When the sockets under a selected pair last received anything: media, DTLS, or the STUN that
/// libnice reads and keeps to itself (consent responses, the peer's checks). libnice exposes no
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

    /// The latest receive seen on the sockets of `component`'s selected pair, or nil if none.
    /// A relayed local candidate has no socket of its own in libnice's API (its base is the
    /// socket to the TURN server), so then every socket of the component counts.
    mutating func lastReceive(agent: OpaquePointer, stream: UInt32, component: Int, now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        if let socket = nice_agent_get_selected_socket(agent, stream, UInt32(component)) {
            defer { g_object_unref(gpointer(socket)) }
            return lastReceive(socket, now: now)
        }
        guard let sockets = nice_agent_get_sockets(agent, stream, UInt32(component)) else { return nil }
        defer { g_ptr_array_unref(sockets) }
        var latest: ContinuousClock.Instant?
        for index in 0..<Int(sockets.pointee.len) {
            guard let pointer = sockets.pointee.pdata[index] else { continue }
            let socket = pointer.assumingMemoryBound(to: GSocket.self)
            if let heard = lastReceive(socket, now: now), latest.map({ heard > $0 }) ?? true { latest = heard }
        }
        return latest
    }

    private mutating func lastReceive(_ socket: UnsafeMutablePointer<GSocket>, now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        let descriptor = g_socket_get_fd(socket)
        switch g_socket_get_socket_type(socket) {
        case G_SOCKET_TYPE_DATAGRAM:
            // The first call switches timestamps on for the socket (and answers ENOENT).
            var stamp = timeval()
            guard ioctl(descriptor, Self.receiveTimestampRequest, &stamp) == 0 else { return nil }
            let microseconds = Int64(stamp.tv_sec) * 1_000_000 + Int64(stamp.tv_usec)
            guard stamps[descriptor] != microseconds else { return nil }
            stamps[descriptor] = microseconds
            return now
        case G_SOCKET_TYPE_STREAM:
            var info = tcp_info()
            var length = socklen_t(MemoryLayout<tcp_info>.size)
            guard getsockopt(descriptor, Int32(IPPROTO_TCP), TCP_INFO, &info, &length) == 0 else { return nil }
            return now - .milliseconds(Int64(info.tcpi_last_data_recv))
        default:
            return nil
        }
    }
}
