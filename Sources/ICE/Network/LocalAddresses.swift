import Foundation

/// The addresses to gather on, always handed to libnice explicitly: left to itself, libnice
/// also gathers IPv6 link-local addresses (fe80::/10), which a candidate line cannot scope and
/// which no other host can use. Loopback is used when the allow list names it, or when no
/// allow list is given and loopback is all there is (a container or a network namespace with only
/// `lo`): calls then reach this host only, which is all such a host can do.
enum LocalAddresses {
    /// Interfaces Debian's libnice 0.1.21 skips when it enumerates by itself (its
    /// IGNORED_IFACE_PREFIX build setting); skipped here too unless named in the allow list.
    private static let ignoredPrefixes = ["docker", "veth", "virbr", "vnet"]

    /// Throws when the interfaces cannot be listed: getifaddrs needs a netlink socket, so at the
    /// process's descriptor limit this is where a call's gathering first meets it.
    static func list(allowedInterfaces: [String], ipv6: Bool) throws(ICEError) -> [String] {
        var head: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&head) == 0 else {
            let error = errno
            throw FileDescriptorLimit.exhausted(errno: error) ?? .gatheringFailed(reason: "could not list the network interfaces: \(String(cString: strerror(error)))")
        }
        guard let first = head else { return [] }
        defer { freeifaddrs(first) }
        var addresses: [String] = []
        var loopback: [String] = []
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            let flags = Int32(entry.pointee.ifa_flags)
            guard let socketAddress = entry.pointee.ifa_addr, flags & Int32(IFF_UP) != 0 else { continue }
            let name = String(cString: entry.pointee.ifa_name)
            let isLoopback = flags & Int32(IFF_LOOPBACK) != 0
            if allowedInterfaces.isEmpty {
                // Loopback only when asked for by name, or when nothing else is up (below).
                guard !ignoredPrefixes.contains(where: name.hasPrefix) else { continue }
            } else {
                guard allowedInterfaces.contains(name) else { continue }
            }
            let family = Int32(socketAddress.pointee.sa_family)
            guard family == AF_INET || (ipv6 && family == AF_INET6) else { continue }
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            guard getnameinfo(socketAddress, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            let text = host.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            if family == AF_INET6, Self.isLinkLocal(socketAddress) { continue }
            if isLoopback && allowedInterfaces.isEmpty { loopback.append(text) } else { addresses.append(text) }
        }
        return addresses.isEmpty ? loopback : addresses
    }

    /// The names of the interfaces that are up, for a message saying which one to allow.
    static func interfacesUp() -> [String] {
        var head: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&head) == 0, let first = head else { return [] }
        defer { freeifaddrs(first) }
        var names: [String] = []
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) where Int32(entry.pointee.ifa_flags) & Int32(IFF_UP) != 0 {
            let name = String(cString: entry.pointee.ifa_name)
            if !names.contains(name) { names.append(name) }
        }
        return names
    }

    private static func isLinkLocal(_ address: UnsafeMutablePointer<sockaddr>) -> Bool {
        address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
            let bytes = withUnsafeBytes(of: ipv6.pointee.sin6_addr) { Array($0.prefix(2)) }
            return bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80
        }
    }
}
