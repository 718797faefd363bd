import Glibc

public struct PortLookupFailed: Error {
    public init() {}
}

/// A loopback TCP (or UDP) port nothing listens on: bound to port 0, read back, closed.
public func unusedLoopbackPort(_ type: __socket_type = SOCK_STREAM) throws -> Int {
    let descriptor = socket(AF_INET, Int32(type.rawValue), 0)
    guard descriptor >= 0 else { throw PortLookupFailed() }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
    }
    guard bound else { throw PortLookupFailed() }
    return Int(UInt16(bigEndian: address.sin_port))
}
