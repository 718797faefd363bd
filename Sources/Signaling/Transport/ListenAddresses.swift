import Glibc

/// One numeric address a server listens on.
struct ListenAddress: Equatable {
    let family: Int32
    /// Numeric form (127.0.0.1, ::1), what libwebsockets binds when given it as the interface.
    let numeric: String
}

/// Turns the host of a listen URL into the numeric addresses to bind, and checks before any
/// vhost exists that each can be bound: libwebsockets given an address this host does not own
/// (or a name, which it takes for an interface) creates a vhost that listens nowhere and says
/// nothing, and given an IPv4 address on an IPv6 socket it listens on every interface.
enum ListenAddresses {
    /// The addresses `host` stands for, in resolver order without repeats. nil is loopback.
    static func resolve(_ host: String?) throws(WebSocketError) -> [ListenAddress] {
        let name = host ?? "localhost"
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(name, nil, &hints, &list)
        guard status == 0, let list else {
            throw .listenFailed("cannot listen on \(name): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var addresses: [ListenAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            entry = current.pointee.ai_next
            let family = current.pointee.ai_family
            guard family == AF_INET || family == AF_INET6, let socketAddress = current.pointee.ai_addr else { continue }
            var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            guard getnameinfo(socketAddress, current.pointee.ai_addrlen, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            let numeric = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let address = ListenAddress(family: family, numeric: numeric)
            if !addresses.contains(address) { addresses.append(address) }
        }
        guard !addresses.isEmpty else { throw .listenFailed("\(name) has no IPv4 or IPv6 address to listen on") }
        return addresses
    }

    /// Throws, saying why, when nothing could listen on `address` at `port` now (0: any port).
    static func checkBindable(_ address: ListenAddress, port: Int) throws(WebSocketError) {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = address.family
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(address.numeric, String(port), &hints, &list) == 0, let list, let socketAddress = list.pointee.ai_addr else {
            throw .listenFailed("\(address.numeric) is not a numeric address")
        }
        defer { freeaddrinfo(list) }
        let probe = socket(address.family, Int32(SOCK_STREAM.rawValue), 0)
        guard probe >= 0 else { throw .listenFailed("cannot open an \(familyName(address.family)) socket: \(String(cString: strerror(errno)))") }
        defer { close(probe) }
        var on: Int32 = 1
        // As the listening socket will: a port whose old connections linger in TIME_WAIT is free.
        setsockopt(probe, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        if address.family == AF_INET6 { setsockopt(probe, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &on, socklen_t(MemoryLayout<Int32>.size)) }
        guard bind(probe, socketAddress, list.pointee.ai_addrlen) == 0 else {
            let code = errno
            let shown = address.family == AF_INET6 ? "[\(address.numeric)]:\(port)" : "\(address.numeric):\(port)"
            switch code {
            case EADDRNOTAVAIL: throw .listenFailed("cannot listen on \(shown): this host has no address \(address.numeric)")
            case EADDRINUSE: throw .listenFailed("cannot listen on \(shown): the port is in use")
            case EACCES: throw .listenFailed("cannot listen on \(shown): permission denied (ports below 1024 need privileges)")
            default: throw .listenFailed("cannot listen on \(shown): \(String(cString: strerror(code)))")
            }
        }
    }

    private static func familyName(_ family: Int32) -> String { family == AF_INET6 ? "IPv6" : "IPv4" }
}
