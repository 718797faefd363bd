/// How a client connection verifies the server's TLS certificate.
public enum TLSVerification: Sendable, Hashable {
    /// The system CA store.
    case systemTrustStore
    /// A PEM file of trusted CA certificates instead of the system store.
    case customCA(path: String)
    /// No verification at all: for local tests against self-signed servers only.
    case insecureSkipVerification
}

public struct WebSocketOptions: Sendable {
    /// From the start of connecting to a completed WebSocket handshake (TCP, TLS and the
    /// upgrade together), at most `maximumConnectTimeout`.
    public var connectTimeout: Duration = .seconds(5)
    public static let maximumConnectTimeout: Duration = .seconds(60)
    /// Largest message accepted; a larger one is refused and the connection closed with 1009.
    public var maximumMessageSize: Int = 1 << 20
    /// Bytes allowed to wait in the outgoing queue before `send` refuses.
    public var maximumQueuedBytes: Int = 8 << 20
    /// Idle seconds before a WebSocket ping, and before a connection with no pong is dropped.
    public var pingAfterIdleSeconds: UInt16 = 20
    public var dropAfterIdleSeconds: UInt16 = 45
    public var tls: TLSVerification = .systemTrustStore
    /// Ours for a `wss://` server that asks for one (mutual TLS); nil shows none.
    public var clientCertificate: TLSClientCertificate?
    /// The Sec-WebSocket-Protocol to ask for (Janus needs "janus-protocol").
    public var subprotocol: String?
    public var origin: String?

    public init() {}
}

package struct WebSocketServerOptions: Sendable {
    /// Address or name to bind, e.g. "127.0.0.1", "::1", "localhost" (each address it resolves
    /// to), "0.0.0.0" or "::" for every interface; nil is loopback.
    package var bindAddress: String?
    /// 0 picks a free port; `WebSocketServer.port` tells which.
    package var port: Int
    /// PEM certificate and key for wss://; nil serves plain ws://.
    package var certificatePath: String?
    package var privateKeyPath: String?
    package var maximumMessageSize: Int = 1 << 20
    package var maximumQueuedBytes: Int = 8 << 20
    package var pingAfterIdleSeconds: UInt16 = 20
    package var dropAfterIdleSeconds: UInt16 = 45
    /// Files served by HTTP GET on the same port (a libwebsockets mount on "/"); none: HTTP
    /// requests other than the WebSocket upgrade get 404.
    package var httpResources: [HTTPResource] = []

    package init(bindAddress: String?, port: Int, certificatePath: String? = nil, privateKeyPath: String? = nil) {
        self.bindAddress = bindAddress
        self.port = port
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
    }
}
