import Foundation

/// The addresses to gather on when the configuration narrows them (an interface allow list, or
/// IPv6 off); nil lets libnice take every interface but loopback. Loopback is used only when the
/// allow list names it.
enum LocalAddresses {
    static func list(allowedInterfaces: [String], ipv6: Bool) -> [String]? {
        guard !allowedInterfaces.isEmpty || !ipv6 else { return nil }
        var head: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&head) == 0, let first = head else { return [] }
        defer { freeifaddrs(first) }
        var addresses: [String] = []
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            let flags = Int32(entry.pointee.ifa_flags)
            guard let socketAddress = entry.pointee.ifa_addr, flags & Int32(IFF_UP) != 0 else { continue }
            let name = String(cString: entry.pointee.ifa_name)
            // Loopback only when asked for by name: calls that never leave this machine (the demo).
            guard flags & Int32(IFF_LOOPBACK) == 0 || allowedInterfaces.contains(name) else { continue }
            guard allowedInterfaces.isEmpty || allowedInterfaces.contains(name) else { continue }
            let family = Int32(socketAddress.pointee.sa_family)
            guard family == AF_INET || (ipv6 && family == AF_INET6) else { continue }
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            guard getnameinfo(socketAddress, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            let text = host.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            // Link-local IPv6 needs a scope id on the wire and is useless across a NAT.
            if text.lowercased().hasPrefix("fe80") { continue }
            addresses.append(text)
        }
        return addresses
    }
}
