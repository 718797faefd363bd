import Glibc

/// The local and remote IP addresses of a connected socket. A client watching the network needs
/// them: when the local one is gone from the host, the connection is dead whatever TCP thinks.
public struct SocketEndpoints: Sendable, Equatable {
    public let localAddress: String
    public let remoteAddress: String

    public init(localAddress: String, remoteAddress: String) {
        self.localAddress = localAddress
        self.remoteAddress = remoteAddress
    }

    /// Reads both ends of `descriptor`; nil when it is not a connected IP socket.
    static func of(descriptor: Int32) -> SocketEndpoints? {
        guard descriptor >= 0, let local = address(descriptor, getsockname), let remote = address(descriptor, getpeername) else { return nil }
        return SocketEndpoints(localAddress: local, remoteAddress: remote)
    }

    private static func address(_ descriptor: Int32, _ read: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32) -> String? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { read(descriptor, $0, &length) }
        }
        guard status == 0 else { return nil }
        return text(of: storage)
    }

    /// The numeric text of an IPv4 or IPv6 socket address (IPv4-mapped IPv6 as plain IPv4).
    public static func text(of storage: sockaddr_storage) -> String? {
        var storage = storage
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address -> String? in
                    var raw = address.pointee.sin_addr
                    guard inet_ntop(AF_INET, &raw, &buffer, socklen_t(buffer.count)) != nil else { return nil }
                    return nulTerminated(buffer)
                }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address -> String? in
                    var raw = address.pointee.sin6_addr
                    guard inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count)) != nil else { return nil }
                    let text = nulTerminated(buffer)
                    return text.hasPrefix("::ffff:") && text.contains(".") ? String(text.dropFirst(7)) : text
                }
            }
        default:
            return nil
        }
    }

    private static func nulTerminated(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
