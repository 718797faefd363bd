import Glibc

public struct PortLookupFailed: Error {
    public init() {}
}

/// A socket of `type` bound to an ephemeral port on 127.0.0.1 (close-on-exec), listening with
/// `backlog` when one is given, and the port the kernel chose. The caller owns the descriptor.
public func boundLoopbackSocket(_ type: __socket_type = SOCK_STREAM, listening backlog: Int32? = nil) throws -> (descriptor: Int32, port: Int) {
    let descriptor = socket(AF_INET, Int32(type.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { throw PortLookupFailed() }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(descriptor, $0, length) == 0 && (backlog.map { listen(descriptor, $0) == 0 } ?? true) && getsockname(descriptor, $0, &length) == 0
        }
    }
    guard bound else {
        close(descriptor)
        throw PortLookupFailed()
    }
    return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
}

/// A loopback TCP (or UDP) port nothing listens on: bound to port 0, read back, closed.
public func unusedLoopbackPort(_ type: __socket_type = SOCK_STREAM) throws -> Int {
    let (descriptor, port) = try boundLoopbackSocket(type)
    close(descriptor)
    return port
}

/// A loopback port nothing uses for TCP or for UDP, for a server that listens on both (a SIP
/// proxy): a free TCP port is also free for UDP only by chance, and a test full of UDP media
/// sockets makes that chance small. At most 50 tries.
public func unusedLoopbackPortForTCPAndUDP() throws -> Int {
    for _ in 0..<50 {
        let (stream, port) = try boundLoopbackSocket(SOCK_STREAM)
        defer { close(stream) }
        let datagram = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard datagram >= 0 else { throw PortLookupFailed() }
        defer { close(datagram) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let free = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(datagram, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        if free { return port }
    }
    throw PortLookupFailed()
}
