import COpenSSL
import Foundation
import SDP

/// One DTLS 1.2 association over a datagram transport we do not own (ICE), run with OpenSSL on
/// memory: records come in through `receive`, and go out through the `send` closure, one
/// datagram per record write. Retransmission and the handshake deadline run from `poll`.
///
/// The peer's certificate is accepted only when it hashes to `remoteFingerprint`; otherwise the
/// handshake aborts with `DTLSError.fingerprintMismatch` and no keys are ever exported.
/// Not thread-safe: the media session serialises calls.
package final class DTLSEndpoint {
    package enum State: Sendable, Equatable {
        case new
        case handshaking
        case connected(SRTPKeyingMaterial)
        case failed(DTLSError)
    }

    package let role: DTLSRole
    package let remoteFingerprint: Fingerprint
    package let handshakeTimeout: Duration
    package private(set) var state = State.new
    /// Datagrams handed to `send` so far (handshake flights and retransmissions).
    package private(set) var datagramsSent = 0

    private let context: OpaquePointer
    private let connection: OpaquePointer
    private let incoming: OpaquePointer
    private let send: (UnsafeRawBufferPointer) -> Void
    private let expectedDigest: [UInt8]
    private let digestMethod: OpaquePointer
    private var startedAt: ContinuousClock.Instant?
    fileprivate var sawMismatch = false
    fileprivate var verifiedPeer = false

    package init(
        identity: DTLSIdentity, role: DTLSRole, remoteFingerprint: Fingerprint, profiles: [SRTPProfile] = SRTPProfile.dtlsProfiles,
        handshakeTimeout: Duration = .seconds(10), send: @escaping (UnsafeRawBufferPointer) -> Void
    ) throws(DTLSError) {
        guard let digestMethod = Self.digest(for: remoteFingerprint.hashFunction) else {
            throw .unsupportedFingerprintHash(remoteFingerprint.hashFunction)
        }
        let profileNames = profiles.compactMap(\.openSSLName)
        guard !profileNames.isEmpty else { throw .setup("no DTLS-SRTP profile requested") }
        guard let context = SSL_CTX_new(DTLS_method()) else { throw .setup("SSL_CTX_new") }
        var cleanup: [() -> Void] = [{ SSL_CTX_free(context) }]
        func fail(_ step: String) -> DTLSError {
            cleanup.reversed().forEach { $0() }
            return .setup(step)
        }
        guard SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(DTLS1_2_VERSION), nil) == 1 else { throw fail("minimum version DTLS 1.2") }
        guard SSL_CTX_use_certificate(context, identity.certificate) == 1, SSL_CTX_use_PrivateKey(context, identity.key) == 1,
            SSL_CTX_check_private_key(context) == 1
        else { throw fail("loading our certificate") }
        // Returns 0 on success.
        guard SSL_CTX_set_tlsext_use_srtp(context, profileNames.joined(separator: ":")) == 0 else { throw fail("use_srtp profiles") }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, verifyAgainstFingerprint)

        guard let connection = SSL_new(context) else { throw fail("SSL_new") }
        cleanup.append { SSL_free(connection) }
        guard let incoming = BIO_new(BIO_s_mem()) else { throw fail("BIO_new (incoming)") }
        guard let method = OutgoingDatagramBIO.method, let outgoing = BIO_new(method) else {
            BIO_free(incoming)
            throw fail("BIO_new (outgoing)")
        }
        // An empty memory BIO must report "retry", not end of file.
        BIO_ctrl(incoming, BIO_C_SET_BUF_MEM_EOF_RETURN, -1, nil)
        SSL_set_bio(connection, incoming, outgoing)
        // No kernel socket to ask for the MTU: fix it so flights fragment for a typical path.
        SSL_set_options(connection, UInt64(1) << 12)  // SSL_OP_NO_QUERY_MTU
        SSL_ctrl(connection, DTLS_CTRL_SET_LINK_MTU, 1200, nil)
        DTLS_set_timer_cb(connection, DTLSRetransmission.openSSLTimer)

        self.context = context
        self.connection = connection
        self.incoming = incoming
        self.role = role
        self.remoteFingerprint = remoteFingerprint
        self.handshakeTimeout = handshakeTimeout
        self.send = send
        self.expectedDigest = remoteFingerprint.bytes
        self.digestMethod = digestMethod
        BIO_set_data(outgoing, Unmanaged.passUnretained(self).toOpaque())
        SSL_set_ex_data(connection, 0, Unmanaged.passUnretained(self).toOpaque())
        if role == .client { SSL_set_connect_state(connection) } else { SSL_set_accept_state(connection) }
    }

    /// Whether OpenSSL's record buffers are freed now. After the handshake DTLS carries almost
    /// nothing (media goes as SRTP beside it), yet the connection lives as long as the call: kept,
    /// its read and write buffers would cost ~17 KiB each per call for its whole life (memory per
    /// call, docs/media.md). They are freed once the handshake is done and after each record that
    /// follows it; OpenSSL allocates them again for the next record. SSL_MODE_RELEASE_BUFFERS
    /// does not do this for DTLS.
    package private(set) var recordBuffersFreed = false

    deinit {
        SSL_free(connection)  // frees both BIOs
        SSL_CTX_free(context)
    }

    static func digest(for hashFunction: String) -> OpaquePointer? {
        switch hashFunction.lowercased() {
        case "sha-1": EVP_sha1()
        case "sha-224": EVP_sha224()
        case "sha-256": EVP_sha256()
        case "sha-384": EVP_sha384()
        case "sha-512": EVP_sha512()
        default: nil
        }
    }

    /// Starts the handshake; the client sends its ClientHello now.
    package func start(now: ContinuousClock.Instant = .now) {
        guard case .new = state else { return }
        state = .handshaking
        startedAt = now
        advanceHandshake()
    }

    /// Feeds one DTLS datagram from the peer.
    package func receive(_ datagram: UnsafeRawBufferPointer) {
        guard datagram.count > 0, let base = datagram.baseAddress else { return }
        switch state {
        case .failed: return
        case .new: start()
        default: break
        }
        BIO_write(incoming, base, Int32(datagram.count))
        if case .connected = state {
            readApplicationData()
        } else {
            advanceHandshake()
        }
    }

    /// Retransmits a lost flight when OpenSSL's timer says so, and enforces the handshake deadline.
    package func poll(now: ContinuousClock.Instant = .now) {
        guard case .handshaking = state else { return }
        if let startedAt, now - startedAt > handshakeTimeout {
            let seconds = Double(handshakeTimeout.components.seconds) + Double(handshakeTimeout.components.attoseconds) / 1e18
            state = .failed(.handshakeTimeout(seconds: seconds))
            return
        }
        // DTLSv1_handle_timeout: does nothing until the retransmission timer has expired.
        SSL_ctrl(connection, DTLS_CTRL_HANDLE_TIMEOUT, 0, nil)
    }

    /// Time left until OpenSSL retransmits its last flight; nil when no flight awaits an answer.
    package var retransmissionDue: Duration? {
        var left = timeval()
        guard SSL_ctrl(connection, DTLS_CTRL_GET_TIMEOUT, 0, &left) == 1 else { return nil }
        return .seconds(left.tv_sec) + .microseconds(left.tv_usec)
    }

    fileprivate func output(_ bytes: UnsafeRawBufferPointer) {
        datagramsSent += 1
        send(bytes)
    }

    private func advanceHandshake() {
        let result = SSL_do_handshake(connection)
        if result == 1 {
            finishHandshake()
            return
        }
        let error = SSL_get_error(connection, result)
        guard error != SSL_ERROR_WANT_READ, error != SSL_ERROR_WANT_WRITE else { return }
        if sawMismatch {
            state = .failed(.fingerprintMismatch(hashFunction: remoteFingerprint.hashFunction))
        } else {
            state = .failed(.handshakeFailed(OpenSSLErrors.takeText(fallback: "the peer aborted the handshake")))
        }
        OpenSSLErrors.clear()
    }

    private func finishHandshake() {
        // The verify callback ran for the leaf; refuse anything that slipped past it.
        guard verifiedPeer, !sawMismatch, let peer = SSL_get1_peer_certificate(connection) else {
            state = .failed(.fingerprintMismatch(hashFunction: remoteFingerprint.hashFunction))
            return
        }
        let matches = Self.matches(peer, digest: digestMethod, expected: expectedDigest)
        X509_free(peer)
        guard matches else {
            state = .failed(.fingerprintMismatch(hashFunction: remoteFingerprint.hashFunction))
            return
        }
        guard let selected = SSL_get_selected_srtp_profile(connection), let profile = SRTPProfile(dtlsProfileID: UInt(selected.pointee.id)) else {
            state = .failed(.noSRTPProfile)
            return
        }
        // RFC 5764 §4.2: client key, server key, client salt, server salt.
        let keyLength = profile.keyLength
        let saltLength = profile.saltLength
        var material = [UInt8](repeating: 0, count: 2 * (keyLength + saltLength))
        let label = "EXTRACTOR-dtls_srtp"
        let exported = SSL_export_keying_material(connection, &material, material.count, label, label.utf8.count, nil, 0, 0)
        guard exported == 1 else {
            state = .failed(.keyExport)
            return
        }
        let clientKey = Array(material[0..<keyLength]) + Array(material[(2 * keyLength)..<(2 * keyLength + saltLength)])
        let serverKey = Array(material[keyLength..<(2 * keyLength)]) + Array(material[(2 * keyLength + saltLength)...])
        for index in material.indices { material[index] = 0 }
        freeRecordBuffers()
        state = .connected(
            SRTPKeyingMaterial(
                profile: profile, localMasterKey: role == .client ? clientKey : serverKey,
                remoteMasterKey: role == .client ? serverKey : clientKey))
    }

    /// After the handshake only alerts (or a retransmitted Finished) arrive; read them so a
    /// close_notify is seen.
    private func readApplicationData() {
        var scratch = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        let result = withUnsafeMutableBytes(of: &scratch) { SSL_read(connection, $0.baseAddress, Int32($0.count)) }
        if result <= 0 && SSL_get_error(connection, result) == SSL_ERROR_ZERO_RETURN {
            state = .failed(.closedByPeer)
        }
        OpenSSLErrors.clear()
        freeRecordBuffers()
    }

    private func freeRecordBuffers() {
        // Frees nothing, and says so, while a record is still buffered.
        recordBuffersFreed = SSL_free_buffers(connection) == 1
    }

    static func matches(_ certificate: OpaquePointer, digest: OpaquePointer, expected: [UInt8]) -> Bool {
        var buffer = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(certificate, digest, &buffer, &length) == 1 else { return false }
        return Array(buffer.prefix(Int(length))) == expected
    }

    fileprivate func verifyLeaf(_ certificate: OpaquePointer) -> Bool {
        let matches = Self.matches(certificate, digest: digestMethod, expected: expectedDigest)
        if matches { verifiedPeer = true } else { sawMismatch = true }
        return matches
    }
}

/// Self-signed certificates never chain to a trust anchor; WebRTC trusts a certificate because its
/// hash is the fingerprint signalled in SDP (RFC 8122, RFC 8827). Only the leaf is checked.
private func verifyAgainstFingerprint(_ preverified: Int32, _ store: OpaquePointer?) -> Int32 {
    guard let store, X509_STORE_CTX_get_error_depth(store) == 0,
        let connection = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()),
        let pointer = SSL_get_ex_data(OpaquePointer(connection), 0),
        let certificate = X509_STORE_CTX_get_current_cert(store)
    else { return 1 }
    let endpoint = Unmanaged<DTLSEndpoint>.fromOpaque(pointer).takeUnretainedValue()
    return endpoint.verifyLeaf(certificate) ? 1 : 0
}

/// A write-only BIO that hands each record write to the endpoint as one datagram.
enum OutgoingDatagramBIO {
    // Unsafe: an OpenSSL BIO method pointer, made once by this initialiser and never mutated.
    nonisolated(unsafe) static let method: OpaquePointer? = {
        guard let method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "parley-dtls-datagram") else { return nil }
        BIO_meth_set_write(method) { bio, data, length in
            guard let bio, let data, length > 0, let pointer = BIO_get_data(bio) else { return -1 }
            let endpoint = Unmanaged<DTLSEndpoint>.fromOpaque(pointer).takeUnretainedValue()
            endpoint.output(UnsafeRawBufferPointer(start: data, count: Int(length)))
            return length
        }
        BIO_meth_set_ctrl(method) { _, command, _, _ in
            switch command {
            case BIO_CTRL_FLUSH: 1
            case BIO_CTRL_DGRAM_QUERY_MTU: 1200
            default: 0
            }
        }
        BIO_meth_set_create(method) { bio in
            BIO_set_init(bio, 1)
            return 1
        }
        return method
    }()
}
