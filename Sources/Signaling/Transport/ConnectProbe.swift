import Foundation

/// Why a TCP connect failed, which libwebsockets does not say ("Unable to connect"): one more
/// connect to the same address, which a closed port refuses at once. It resolves a name and waits
/// up to 200 ms, so it never runs on the socket service thread: `explain` runs it on Dispatch's
/// global queue and hands the closure (or, for a raw SIP stream, the reason) on from there.
enum ConnectProbe {
    private static let wait: Int32 = 200  // milliseconds

    /// Hands `closure` to `deliver`, naming a refused port when libwebsockets said only that it
    /// was unable to connect; at once for any other closure.
    static func explain(_ closure: WebSocketClosure, host: String, port: Int, deliver: @escaping @Sendable (WebSocketClosure) -> Void) {
        guard case .connectFailed(let text)? = closure.error else { return deliver(closure) }
        explain(connectFailure: text, host: host, port: port) { reason in
            var explained = closure
            explained.error = .connectFailed(reason)
            deliver(explained)
        }
    }

    static func refusal(host: String, port: Int) -> String {
        "connection refused — is the server running at \(address(host: host, port: port))?"
    }

    /// Hands `deliver` the reason a raw stream's connect failed, naming a refused port when
    /// libwebsockets said only that it was unable to connect; at once for any other reason.
    static func explain(connectFailure text: String, host: String, port: Int, deliver: @escaping @Sendable (String) -> Void) {
        guard text.lowercased().contains("unable to connect") else { return deliver(text) }
        DispatchQueue.global().async {
            deliver(isRefused(host: host, port: port) ? refusal(host: host, port: port) : text)
        }
    }

    /// True when the first address of `host` refuses a TCP connection to `port`.
    static func isRefused(host: String, port: Int) -> Bool {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let list else { return false }
        defer { freeaddrinfo(list) }
        let address = list.pointee
        let descriptor = socket(address.ai_family, address.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), address.ai_protocol)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        if connect(descriptor, address.ai_addr, address.ai_addrlen) == 0 { return false }
        if errno == ECONNREFUSED { return true }
        guard errno == EINPROGRESS else { return false }
        var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        guard poll(&poller, 1, wait) == 1 else { return false }
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { return false }
        return error == ECONNREFUSED
    }

    /// `host:port`, with brackets around an IPv6 literal.
    static func address(host: String, port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
