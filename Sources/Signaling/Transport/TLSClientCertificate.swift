import COpenSSL
import Glibc

/// Our own certificate for a TLS server that asks for one (mutual TLS: SIP over TLS and secure
/// WebSocket, docs/sip.md "Transports"): a PEM certificate (with its chain after it, if any) and
/// its PEM private key, unencrypted. Only the paths travel; the key is read by OpenSSL (or
/// libwebsockets) when a connection is made, and never logged or quoted.
public struct TLSClientCertificate: Sendable, Hashable {
    public let certificatePath: String
    public let privateKeyPath: String

    public init(certificatePath: String, privateKeyPath: String) {
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
    }

    /// Loads both files into a throwaway context and checks the key is the certificate's, so a
    /// wrong file is said before anything goes on the wire.
    public func check() throws(TLSClientCertificateError) {
        for (path, role) in [(certificatePath, TLSClientCertificateError.File.certificate), (privateKeyPath, .privateKey)] {
            var status = stat()
            guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, access(path, R_OK) == 0 else {
                throw .unreadable(role, path: path)
            }
        }
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw .unusable(RawTLSSession.takeError("no TLS context")) }
        defer { SSL_CTX_free(context) }
        try install(on: context)
    }

    /// Gives `context` the certificate, its chain and the key. An encrypted key is refused
    /// rather than prompted for: OpenSSL's default would ask on the terminal.
    func install(on context: OpaquePointer) throws(TLSClientCertificateError) {
        ERR_clear_error()
        SSL_CTX_set_default_passwd_cb(context) { _, _, _, _ in 0 }
        guard SSL_CTX_use_certificate_chain_file(context, certificatePath) == 1 else {
            throw .notACertificate(path: certificatePath, reason: RawTLSSession.takeError("not a PEM certificate"))
        }
        guard SSL_CTX_use_PrivateKey_file(context, privateKeyPath, SSL_FILETYPE_PEM) == 1 else {
            let reason = RawTLSSession.takeError("not a PEM private key")
            // OpenSSL checks a loaded key against the certificate at once, and says so in these words.
            if reason == "key values mismatch" { throw .mismatched(certificatePath: certificatePath, privateKeyPath: privateKeyPath) }
            throw .notAPrivateKey(path: privateKeyPath, reason: reason)
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            ERR_clear_error()
            throw .mismatched(certificatePath: certificatePath, privateKeyPath: privateKeyPath)
        }
    }
}

/// Why our client certificate cannot be used: names the file, never its contents.
public enum TLSClientCertificateError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum File: String, Sendable {
        case certificate = "--cert-file"
        case privateKey = "--key-file"
    }

    case unreadable(File, path: String)
    case notACertificate(path: String, reason: String)
    /// Not PEM, not a key, or encrypted (an encrypted key is not asked a passphrase for).
    case notAPrivateKey(path: String, reason: String)
    case mismatched(certificatePath: String, privateKeyPath: String)
    case unusable(String)

    public var description: String {
        switch self {
        case .unreadable(let file, let path): "\(file.rawValue) \(path): no readable file there"
        case .notACertificate(let path, let reason): "--cert-file \(path): not a PEM certificate (\(reason))"
        case .notAPrivateKey(let path, let reason): "--key-file \(path): not an unencrypted PEM private key (\(reason))"
        case .mismatched(let certificate, let key): "--key-file \(key) is not the private key of --cert-file \(certificate)"
        case .unusable(let reason): "the client certificate cannot be used: \(reason)"
        }
    }
}
