import CWebSockets
import Glibc

/// What a raw socket reports, on the service thread, in order: `opened` (or a `closed` with an
/// error), the bytes received (one UDP datagram, or whatever a stream read returned), `closed`.
enum RawSocketEvent: Sendable {
    case opened(localAddress: String?, localPort: Int?)
    case received([UInt8])
    /// nil when we closed it.
    case closed(SIPTransportError?)
}

/// How a raw socket reaches its peer.
enum RawSocketKind: Sendable {
    /// A UDP socket already connected to the peer; the service thread owns it from then on.
    case datagram(descriptor: Int32)
    /// TCP: libwebsockets resolves and connects; with `tls`, a TLS session runs over the stream
    /// once it is connected (`RawTLSSession`), verified as `tls` says and showing `certificate`
    /// to a server that asks for one.
    case stream(host: String, port: Int, connectTimeout: Duration, tls: TLSVerification?, certificate: TLSClientCertificate?)
}

/// What SIP's TLS contexts are shared by: one per trust and client certificate.
struct SIPTLSContextKey: Hashable {
    let verification: TLSVerification
    let certificate: TLSClientCertificate?
}

struct RawSocketRequest: Sendable {
    let id: Int
    let kind: RawSocketKind
    let sink: @Sendable (RawSocketEvent) -> Void
}

/// One raw SIP socket as the service thread sees it.
final class RawSocketState {
    let id: Int
    let kind: RawSocketKind
    let sink: @Sendable (RawSocketEvent) -> Void
    var wsi: OpaquePointer?
    /// The TCP stream is connected, or the UDP socket watched.
    var opened = false
    /// SIP over TLS's session, from the start of connecting.
    var tls: RawTLSSession?
    /// What was sent before the TLS handshake completed, in plaintext, encrypted once it has.
    var sentBeforeHandshake: [[UInt8]] = []
    /// Stream bytes waiting for the socket to be writable, each with LWS_PRE bytes of headroom.
    var outgoing: [[UInt8]] = []
    var closeRequested = false
    var failure: WebSocketError?
    private var keptStrings: [UnsafeMutablePointer<CChar>] = []
    private var finished = false

    init(_ request: RawSocketRequest) {
        id = request.id
        kind = request.kind
        sink = request.sink
    }

    deinit { keptStrings.forEach { free($0) } }

    /// Open for SIP: connected, and with TLS the handshake complete.
    var ready: Bool { opened && (tls?.established ?? true) }

    var descriptor: Int32? {
        if case .datagram(let descriptor) = kind { descriptor } else { nil }
    }

    func keep(_ text: String) -> UnsafePointer<CChar> {
        let copy = strdup(text)!
        keptStrings.append(copy)
        return UnsafePointer(copy)
    }

    /// Reports the end once; later calls are ignored.
    func finish(_ error: SIPTransportError?) {
        guard !finished else { return }
        finished = true
        wsi = nil
        sink(.closed(error))
    }

    /// Reports a stream's failed connect once, in words that name a refused port (ConnectProbe,
    /// which may report it from another thread: nothing else reaches the sink once finished).
    func finishConnect(failure: WebSocketError) {
        guard !finished else { return }
        guard case .stream(let host, let port, _, _, _) = kind, case .connectFailed(let text) = failure else {
            return finish(SIPTransportError(failure))
        }
        finished = true
        wsi = nil
        ConnectProbe.explain(connectFailure: text, host: host, port: port) { [sink] reason in
            sink(.closed(.connectFailed(reason)))
        }
    }
}
