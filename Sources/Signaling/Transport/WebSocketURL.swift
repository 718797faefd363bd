/// A `ws://` or `wss://` URL split into what libwebsockets' client connect needs.
public struct WebSocketURL: Sendable, Equatable, CustomStringConvertible {
    public var secure: Bool
    public var host: String
    public var port: Int
    /// Path and query, always starting with "/".
    public var path: String

    public init(secure: Bool, host: String, port: Int, path: String) {
        self.secure = secure
        self.host = host
        self.port = port
        self.path = path.hasPrefix("/") ? path : "/" + path
    }

    public init(parsing text: String) throws(WebSocketError) {
        // Every message below quotes the URL: never with a password in it.
        let shown = Self.hidingPassword(text)
        let secure: Bool
        let rest: Substring
        if text.hasPrefix("wss://") {
            secure = true
            rest = text.dropFirst(6)
        } else if text.hasPrefix("ws://") {
            secure = false
            rest = text.dropFirst(5)
        } else {
            throw .invalidURL(shown, reason: "it must start with ws:// or wss://")
        }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var path = String(rest[authorityEnd...])
        if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
        guard !authority.contains("@") else { throw .invalidURL(shown, reason: "credentials in the URL are not supported; use the login options") }

        let host: Substring
        var port = secure ? 443 : 80
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .invalidURL(shown, reason: "an IPv6 address needs a closing ]") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let afterHost = authority[authority.index(after: close)...]
            if !afterHost.isEmpty {
                guard afterHost.hasPrefix(":") else { throw .invalidURL(shown, reason: "unexpected text after the IPv6 address") }
                port = try Self.port(afterHost.dropFirst(), in: shown)
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            port = try Self.port(authority[authority.index(after: colon)...], in: shown)
        } else {
            host = authority
        }
        guard !host.isEmpty else { throw .invalidURL(shown, reason: "the host is missing") }
        guard host.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == ":" || $0 == "_" }) else {
            throw .invalidURL(shown, reason: "the host has characters a host name cannot have")
        }
        self.init(secure: secure, host: String(host), port: port, path: path)
    }

    /// `text` with the password of a `user:password@` before the host replaced by `<redacted>`.
    static func hidingPassword(_ text: String) -> String {
        guard let scheme = text.range(of: "://") else { return text }
        let rest = text[scheme.upperBound...]
        // Up to the query, not the path: a password with an unescaped / must not slip through.
        let queryStart = rest.firstIndex { $0 == "?" || $0 == "#" } ?? rest.endIndex
        guard let at = rest[..<queryStart].lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") else { return text }
        return String(text[..<rest.index(after: colon)]) + "<redacted>" + String(text[at...])
    }

    private static func port(_ text: Substring, in url: String) throws(WebSocketError) -> Int {
        // 0 is allowed: a listening URL uses it to ask for any free port.
        guard let port = Int(text), (0...65_535).contains(port) else {
            throw .invalidURL(url, reason: "the port must be a number from 0 to 65535")
        }
        return port
    }

    /// The same URL with one query parameter set (replacing an earlier value of that name).
    public func settingQuery(_ name: String, to value: String) -> WebSocketURL {
        let (base, query) = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
            .map(String.init).splitFirst()
        var pairs = (query ?? "").split(separator: "&").map(String.init).filter { !$0.hasPrefix(name + "=") && !$0.isEmpty }
        pairs.append(name + "=" + Self.percentEncoded(value))
        return WebSocketURL(secure: secure, host: host, port: port, path: base + "?" + pairs.joined(separator: "&"))
    }

    static func percentEncoded(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.unicodeScalars.append(UnicodeScalar(byte))
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    public var description: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "\(secure ? "wss" : "ws")://\(hostPart):\(port)\(path)"
    }
}

extension Array where Element == String {
    fileprivate func splitFirst() -> (String, String?) {
        (first ?? "", count > 1 ? self[1] : nil)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: Swift.max(0, width - count)) + self
    }
}
