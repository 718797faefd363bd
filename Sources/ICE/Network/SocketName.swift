import Foundation

/// A socket's local or peer address as numeric text and port, for telling sockets apart.
struct SocketName: Hashable, Sendable {
    let host: String
    let port: Int

    static func local(_ descriptor: Int32) -> SocketName? { name(descriptor, getsockname) }
    static func peer(_ descriptor: Int32) -> SocketName? { name(descriptor, getpeername) }

    private static func name(_ descriptor: Int32, _ call: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32) -> SocketName? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        return withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address -> SocketName? in
                guard call(descriptor, address, &length) == 0 else { return nil }
                let family = Int32(address.pointee.sa_family)
                guard family == AF_INET || family == AF_INET6 else { return nil }
                var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
                var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
                guard getnameinfo(address, length, &host, socklen_t(host.count), &service, socklen_t(service.count), NI_NUMERICHOST | NI_NUMERICSERV) == 0 else { return nil }
                let text = host.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
                let port = service.withUnsafeBufferPointer { Int(String(cString: $0.baseAddress!)) } ?? 0
                return SocketName(host: text, port: port)
            }
        }
    }
}
