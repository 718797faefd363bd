// SOCK_STREAM/SOCK_DGRAM come from glibc's bits/socket_type.h, which the GLib headers pull into
// the CNice module first; without this import a clean build cannot see them.
import CNice
import Foundation

struct ResolvedServer: Sendable {
    let server: ICEServer
    /// A numeric IPv4 or IPv6 address.
    let address: String
}

/// libnice takes numeric addresses only; host names are looked up here, off the network thread.
enum ServerResolver {
    static func resolve(_ servers: [ICEServer], ipv6: Bool) async throws(ICEError) -> [ResolvedServer] {
        var resolved: [ResolvedServer] = []
        for server in servers {
            guard let address = await lookUp(server.host, ipv6: ipv6) else { throw .serverUnresolvable(server: server.description) }
            resolved.append(ResolvedServer(server: server, address: address))
        }
        return resolved
    }

    static func lookUp(_ host: String, ipv6: Bool) async -> String? {
        if let numeric = AddressLookup.first(host, ipv6: ipv6, numericOnly: true) { return numeric }
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: AddressLookup.first(host, ipv6: ipv6, numericOnly: false))
            }
        }
    }
}

/// One getaddrinfo call, giving the first address as text.
enum AddressLookup {
    static func first(_ host: String, ipv6: Bool, numericOnly: Bool) -> String? {
        var hints = addrinfo()
        hints.ai_family = ipv6 ? AF_UNSPEC : AF_INET
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        hints.ai_flags = numericOnly ? AI_NUMERICHOST : 0
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &result) == 0, let list = result else { return nil }
        defer { freeaddrinfo(list) }
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(list.pointee.ai_addr, list.pointee.ai_addrlen, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else { return nil }
        return host.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}

/// Browsers' `.local` host candidates; resolution goes through the system resolver (nss-mdns
/// when installed), so a host without mDNS skips them.
enum MulticastDNSResolver {
    static func resolve(_ name: String, ipv6: Bool, completion: @escaping @Sendable (String?) -> Void) {
        DispatchQueue.global().async {
            completion(AddressLookup.first(name, ipv6: ipv6, numericOnly: false))
        }
    }
}
