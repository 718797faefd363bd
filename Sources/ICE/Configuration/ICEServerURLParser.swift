/// RFC 7064 §3.1 and RFC 7065 §3.1 grammar:
/// `scheme ":" host [ ":" port ] [ "?transport=" transport ]`, no user info, no path.
enum ICEServerURLParser {
    static func parse(_ url: String, username: String?, credential: String?) throws(ICEConfigurationError) -> ICEServer {
        // The URL itself never holds a secret (RFC 7065 forbids userinfo), but it may be garbage
        // the user pasted with one, so errors quote at most its start.
        let quoted = quote(url)
        guard let colon = url.firstIndex(of: ":") else { throw .unsupportedScheme(url: quoted) }
        let scheme = url[..<colon].lowercased()
        guard ["stun", "stuns", "turn", "turns"].contains(scheme) else { throw .unsupportedScheme(url: quoted) }
        var rest = url[url.index(after: colon)...]
        if rest.contains("@") || rest.hasPrefix("//") { throw .invalidHost(url: quoted) }

        var query: Substring?
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        let (host, port) = try hostAndPort(rest, url: quoted)

        switch scheme {
        case "stun":
            if query != nil { throw .unsupportedQuery(url: quoted) }
            return ICEServer(kind: .stun, host: host, port: port ?? ICEServer.defaultPort, username: username, credential: credential)
        case "stuns":
            throw .stunsNotSupported(url: quoted)
        case "turn", "turns":
            let secure = scheme == "turns"
            var transport: ICEServer.TURNTransport = secure ? .tls : .udp
            if let query {
                guard query.lowercased().hasPrefix("transport=") else { throw .unsupportedQuery(url: quoted) }
                let value = query.dropFirst("transport=".count).lowercased()
                switch (value, secure) {
                case ("udp", false): transport = .udp
                case ("tcp", false): transport = .tcp
                case ("tcp", true): transport = .tls
                default: throw .unsupportedTransport(url: quoted, transport: String(value.prefix(16)))
                }
            }
            guard let username, !username.isEmpty, let credential, !credential.isEmpty else {
                throw .missingCredentials(url: quoted)
            }
            let defaultPort = secure ? ICEServer.defaultTLSPort : ICEServer.defaultPort
            return ICEServer(kind: .turn, host: host, port: port ?? defaultPort, transport: transport, username: username, credential: credential)
        default:
            throw .unsupportedScheme(url: quoted)
        }
    }

    private static func hostAndPort(_ text: Substring, url: String) throws(ICEConfigurationError) -> (String, UInt16?) {
        guard !text.isEmpty else { throw .missingHost(url: url) }
        var host: Substring
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw .invalidHost(url: url) }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .invalidHost(url: url) }
                portText = after.dropFirst()
            }
            guard host.contains(":"), host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw .invalidHost(url: url)
            }
        } else {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { throw .invalidHost(url: url) }
            host = parts[0]
            portText = parts.count == 2 ? parts[1] : nil
            guard isRegisteredNameOrIPv4(host) else { throw .invalidHost(url: url) }
        }
        guard !host.isEmpty else { throw .missingHost(url: url) }
        guard let portText else { return (String(host), nil) }
        guard portText.count <= 5, portText.allSatisfy(\.isASCII), let port = UInt16(portText), port > 0 else {
            throw .invalidPort(url: url)
        }
        return (String(host), port)
    }

    private static func isRegisteredNameOrIPv4(_ host: Substring) -> Bool {
        host.count <= 253 && host.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }
    }

    private static func quote(_ url: String) -> String {
        url.count <= 80 ? url : String(url.prefix(80)) + "…"
    }
}
