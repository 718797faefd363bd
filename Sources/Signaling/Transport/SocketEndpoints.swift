import Glibc

/// The local and remote IP addresses of a connected socket. A client watching the network needs
/// them: when the local one is gone from the host, the connection is dead whatever TCP thinks.
package struct SocketEndpoints: Sendable, Equatable {
    package let localAddress: String
    package let remoteAddress: String

    package init(localAddress: String, remoteAddress: String) {
        self.localAddress = localAddress
        self.remoteAddress = remoteAddress
    }

    /// Reads both ends of `descriptor`; nil when it is not a connected IP socket.
    package static func of(descriptor: Int32) -> SocketEndpoints? {
        guard descriptor >= 0, let local = address(descriptor, getsockname), let remote = address(descriptor, getpeername) else { return nil }
        return SocketEndpoints(localAddress: local, remoteAddress: remote)
    }

    /// One end of `descriptor` as numeric text (an IPv4-mapped IPv6 address as plain IPv4).
    package static func address(_ descriptor: Int32, _ read: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32) -> String? {
        guard let host = numericName(descriptor, read)?.host else { return nil }
        return host.hasPrefix("::ffff:") && host.contains(".") ? String(host.dropFirst(7)) : host
    }

    /// The port of one end of `descriptor`, or nil when it is not an IP socket.
    package static func port(_ descriptor: Int32, _ read: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32) -> Int? {
        numericName(descriptor, read).flatMap { Int($0.port) }
    }

    private static func numericName(_ descriptor: Int32, _ read: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32) -> (host: String, port: String)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        return withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address -> (host: String, port: String)? in
                guard read(descriptor, address, &length) == 0 else { return nil }
                var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
                var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
                guard getnameinfo(address, length, &host, socklen_t(host.count), &service, socklen_t(service.count), NI_NUMERICHOST | NI_NUMERICSERV) == 0
                else { return nil }
                return (text(host), text(service))
            }
        }
    }

    private static func text(_ characters: [CChar]) -> String {
        String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
