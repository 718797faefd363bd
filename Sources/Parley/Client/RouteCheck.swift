import Glibc
import Signaling

/// Asks the kernel which local address it would use toward a host, without sending anything
/// (a UDP socket's connect only looks up the route). Nil when there is no route: the network
/// under the client is gone.
enum RouteCheck {
    /// `host` is a numeric IPv4 or IPv6 address (the signalling socket's peer).
    static func sourceAddress(toward host: String) -> String? {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, "9", &hints, &found) == 0, let target = found else { return nil }
        defer { freeaddrinfo(found) }
        let descriptor = socket(target.pointee.ai_family, target.pointee.ai_socktype, 0)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard connect(descriptor, target.pointee.ai_addr, target.pointee.ai_addrlen) == 0 else { return nil }
        return SocketEndpoints.address(descriptor, getsockname)
    }
}
