import COpenSSL
import Glibc

/// SIP over TLS (docs/sip.md, "Transports"): an OpenSSL client session over a raw TCP stream
/// that libwebsockets has connected. OpenSSL sees only two memory BIOs: the service thread
/// writes what the socket received into one and drains the other into the socket's writes, so
/// libwebsockets keeps doing the TCP (connect, readiness, partial writes) and OpenSSL only the
/// records. (libwebsockets 4.1's own raw TLS client starts its handshake before the TCP connect
/// completes.) Touched only on the service thread.
final class RawTLSSession {
    private let ssl: OpaquePointer
    private let received: OpaquePointer
    private let toSend: OpaquePointer
    private let host: String
    private(set) var established = false
    /// Plaintext of one SSL_read, reused for every read.
    private var plaintext = [UInt8](repeating: 0, count: 16_384)

    /// A context that verifies servers as `verification` says, TLS 1.2 or later, and shows
    /// `certificate` to a server that asks for one; sessions share it.
    static func makeContext(_ verification: TLSVerification, certificate: TLSClientCertificate?) throws(WebSocketError) -> OpaquePointer {
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw .tlsFailed(Self.takeError("no TLS context")) }
        SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(TLS1_2_VERSION), nil)
        switch verification {
        case .systemTrustStore:
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
            SSL_CTX_set_default_verify_paths(context)
        case .customCA(let path):
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
            guard SSL_CTX_load_verify_locations(context, path, nil) == 1 else {
                SSL_CTX_free(context)
                throw .tlsFailed("cannot read the CA file \(path): \(Self.takeError("not a PEM certificate"))")
            }
        case .insecureSkipVerification:
            SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        }
        if let certificate {
            do { try certificate.install(on: context) } catch {
                SSL_CTX_free(context)
                throw .tlsFailed(error.description)
            }
        }
        return context
    }

    /// A session of `context` that checks the server's certificate against `host` (a name or an
    /// IP address) and sends `host` as SNI when it is a name.
    init(host: String, context: OpaquePointer) throws(WebSocketError) {
        ERR_clear_error()
        guard let ssl = SSL_new(context) else { throw .tlsFailed(Self.takeError("no TLS session")) }
        guard let received = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw .tlsFailed(Self.takeError("no TLS session"))
        }
        guard let toSend = BIO_new(BIO_s_mem()) else {
            BIO_free(received)
            SSL_free(ssl)
            throw .tlsFailed(Self.takeError("no TLS session"))
        }
        // The session owns both from here.
        SSL_set_bio(ssl, received, toSend)
        SSL_set_connect_state(ssl)
        // SSL_set1_host takes an IP address as one too (OpenSSL 3); SNI names hosts only (RFC 6066 §3).
        guard SSL_set1_host(ssl, host) == 1 else {
            SSL_free(ssl)
            throw .tlsFailed(Self.takeError("\(host) cannot be checked against a certificate"))
        }
        if !Self.isIPAddress(host) {
            _ = host.withCString { SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, Int(TLSEXT_NAMETYPE_host_name), UnsafeMutableRawPointer(mutating: $0)) }
        }
        self.ssl = ssl
        self.received = received
        self.toSend = toSend
        self.host = host
    }

    deinit { SSL_free(ssl) }

    /// Takes what the socket received.
    func feed(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        _ = BIO_write(received, base, Int32(bytes.count))
    }

    /// Advances the handshake: true once it is complete, false while it waits for the server;
    /// a refused certificate or a peer that does not speak TLS throws, in words.
    func handshake() throws(WebSocketError) -> Bool {
        guard !established else { return true }
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            established = true
            return true
        }
        let error = SSL_get_error(ssl, result)
        if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return false }
        let verdict = SSL_get_verify_result(ssl)
        if verdict != X509_V_OK {
            ERR_clear_error()
            throw .tlsFailed(TLSFailure.describe(verifyError: Int32(verdict), host: host))
        }
        let reason = Self.takeError("the handshake failed")
        throw .tlsFailed(TLSFailure.notTLS(reason.lowercased()) ? "the server does not seem to speak TLS on that port" : TLSFailure.describeAlert(reason))
    }

    /// Decrypts whatever whole records were fed, handing each read's plaintext to `deliver`:
    /// false once the server has ended the session (close_notify); a bad record throws.
    func decrypt(_ deliver: ([UInt8]) -> Void) throws(WebSocketError) -> Bool {
        ERR_clear_error()
        // Bounded: each read consumes fed bytes, and only what one receive fed is there.
        while true {
            let count = plaintext.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 {
                deliver(Array(plaintext[..<Int(count)]))
                continue
            }
            let error = SSL_get_error(ssl, count)
            if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return true }
            if error == SSL_ERROR_ZERO_RETURN { return false }
            throw .tlsFailed(TLSFailure.describeAlert(Self.takeError("a TLS record could not be read")))
        }
    }

    /// Encrypts `bytes` into records waiting in `drain`.
    func encrypt(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        _ = bytes.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
    }

    /// Says close_notify (RFC 8446 §6.1); the alert waits in `drain`.
    func shutdown() {
        if established { _ = SSL_shutdown(ssl) }
        ERR_clear_error()
    }

    /// The records OpenSSL has written, after `headroom` spare bytes (libwebsockets' LWS_PRE), or nil.
    func drain(headroom: Int) -> [UInt8]? {
        let pending = Int(BIO_ctrl_pending(toSend))
        guard pending > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: headroom + pending)
        let read = bytes.withUnsafeMutableBytes { BIO_read(toSend, $0.baseAddress! + headroom, Int32(pending)) }
        guard read > 0 else { return nil }
        bytes.removeLast(pending - Int(read))
        return bytes
    }

    /// OpenSSL's oldest queued error as text (its reason, never data), and the queue cleared: a
    /// stale entry would make the next SSL_get_error on this thread, for any session, fatal.
    static func takeError(_ fallback: String) -> String {
        defer { ERR_clear_error() }
        let code = ERR_get_error()
        guard code != 0, let reason = ERR_reason_error_string(code) else { return fallback }
        return String(cString: reason)
    }

    private static func isIPAddress(_ host: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET, host, &address) == 1 || inet_pton(AF_INET6, host, &address) == 1
    }
}
