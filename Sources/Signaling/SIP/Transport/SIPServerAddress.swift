/// Where a SIP flow connects: parsed from the server URL a user gives (docs/sip.md, "URLs").
///
/// - `sip:host[:port][;transport=udp|tcp|tls|ws|wss]`: UDP unless `transport` says otherwise;
/// - `sips:host[:port]`: TLS (RFC 3261 §26.2.2; `;transport=wss` for secure WebSocket);
/// - `ws://host[:port][/path]`, `wss://…`: SIP over WebSocket (RFC 7118).
///
/// A port left out is the transport's default (5060, 5061 for TLS, 80 and 443 for WebSocket).
package struct SIPServerAddress: Sendable, Equatable, CustomStringConvertible {
    package var transport: SIPTransport
    package var host: String
    package var port: Int
    /// The WebSocket URL, for `ws` and `wss`.
    package var webSocketURL: WebSocketURL?

    package init(transport: SIPTransport, host: String, port: Int? = nil) {
        self.transport = transport
        self.host = host
        self.port = port ?? transport.defaultPort
        if transport == .ws || transport == .wss {
            webSocketURL = WebSocketURL(secure: transport == .wss, host: host, port: self.port, path: "/")
        }
    }

    package init(parsing text: String) throws(SIPTransportError) {
        if text.hasPrefix("ws://") || text.hasPrefix("wss://") {
            let url: WebSocketURL
            do { url = try WebSocketURL(parsing: text) } catch { throw .invalidAddress(WebSocketURL.hidingPassword(text), reason: Self.reason(error)) }
            self.init(transport: url.secure ? .wss : .ws, host: url.host, port: url.port)
            webSocketURL = url
            return
        }
        // RFC 3261's URIs take no "//"; written as a web URL's, the host would parse as empty.
        if let scheme = ["sips://", "sip://"].first(where: text.hasPrefix) {
            let written = String(scheme.dropLast(2)) + text.dropFirst(scheme.count)
            throw .invalidAddress(Self.hidingUserInfo(text), reason: "a SIP URI has no // after its scheme: write \(Self.hidingUserInfo(written))")
        }
        let uri: SIPURI
        do { uri = try SIPURI(parsing: text, field: "server") } catch {
            throw .invalidAddress(Self.hidingUserInfo(text), reason: "it must be sip:host[:port][;transport=…], sips:host[:port], ws://… or wss://… (\(error.reason))")
        }
        guard uri.user == nil, uri.password == nil else {
            throw .invalidAddress(Self.hidingUserInfo(text), reason: "a user in the server URL is not supported; use the login options")
        }
        let secure = uri.scheme == "sips"
        let named = uri.transport ?? (secure ? "tls" : "udp")
        guard let chosen = SIPTransport(rawValue: named) else {
            throw .invalidAddress(text, reason: "transport=\(named) is not one of udp, tcp, tls, ws, wss")
        }
        // sips: asks for TLS on every hop (RFC 3261 §26.2.2): TLS, or TCP taken to mean TLS as RFC 5630 §3.1.3 does.
        let transport: SIPTransport = secure ? (chosen == .ws || chosen == .wss ? .wss : .tls) : chosen
        guard !(secure && chosen == .udp) else { throw .invalidAddress(text, reason: "sips: cannot run over UDP") }
        let host = uri.host.hasPrefix("[") ? String(uri.host.dropFirst().dropLast()) : uri.host
        self.init(transport: transport, host: host, port: uri.port)
    }

    package var description: String {
        if let webSocketURL { return webSocketURL.description }
        let shown = host.contains(":") ? "[\(host)]" : host
        return "sip:\(shown):\(port);transport=\(transport.rawValue)"
    }

    private static func reason(_ error: WebSocketError) -> String {
        if case .invalidURL(_, let reason) = error { return reason }
        return error.description
    }

    /// `text` with whatever stands between the scheme and an `@` replaced, since it may be a password.
    private static func hidingUserInfo(_ text: String) -> String {
        guard let colon = text.firstIndex(of: ":"), let at = text.firstIndex(of: "@"), colon < at else { return text }
        return String(text[...colon]) + "<redacted>" + String(text[at...])
    }
}
