/// How a SIP flow connects and how much it accepts.
package struct SIPFlowOptions: Sendable {
    /// From the start of connecting to an open flow (TCP, TLS and the WebSocket upgrade together).
    package var connectTimeout: Duration = .seconds(5)
    package var tls: TLSVerification = .systemTrustStore
    /// Shown to a `sips:` or `wss://` server that asks for one (mutual TLS); nil shows none.
    package var clientCertificate: TLSClientCertificate?
    package var limits = SIPLimits()
    /// Seconds between CRLF keep-alives on a stream or WebSocket flow (RFC 5626 §4.4.1), which
    /// keep NAT bindings and the server's connection open; nil sends none. UDP flows send none:
    /// their bindings are kept by the registration's refreshes.
    package var keepAliveInterval: Duration? = .seconds(30)

    package init() {}
}
