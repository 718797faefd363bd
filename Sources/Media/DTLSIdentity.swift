import COpenSSL
import SDP

/// Why a DTLS identity could not be made.
package struct DTLSIdentityError: Error, Sendable, Equatable, CustomStringConvertible {
    package let step: String
    package var description: String { "could not create the DTLS certificate: \(step) failed" }
}

/// Our DTLS certificate (RFC 8827 §6.5): a fresh self-signed ECDSA P-256 key and certificate,
/// whose SHA-256 fingerprint goes into our SDP.
/// Unchecked: OpenSSL key and certificate pointers, immutable after init and freed once in deinit.
package final class DTLSIdentity: @unchecked Sendable {
    // Immutable after init and freed once in deinit, so sharing across threads is safe.
    let key: OpaquePointer
    let certificate: OpaquePointer
    package let fingerprint: Fingerprint

    private init(key: OpaquePointer, certificate: OpaquePointer, fingerprint: Fingerprint) {
        self.key = key
        self.certificate = certificate
        self.fingerprint = fingerprint
    }

    deinit {
        X509_free(certificate)
        EVP_PKEY_free(key)
    }

    /// Generates a new key pair and a certificate valid from a day ago for 30 days.
    package static func generate(commonName: String = "parley") throws(DTLSIdentityError) -> DTLSIdentity {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw DTLSIdentityError(step: "EVP_PKEY_CTX_new_from_name") }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1 else { throw DTLSIdentityError(step: "EVP_PKEY_keygen_init") }
        guard EVP_PKEY_CTX_set_group_name(context, "P-256") == 1 else { throw DTLSIdentityError(step: "EVP_PKEY_CTX_set_group_name") }
        var generated: OpaquePointer?
        guard EVP_PKEY_generate(context, &generated) == 1, let key = generated else { throw DTLSIdentityError(step: "EVP_PKEY_generate") }

        guard let certificate = X509_new() else {
            EVP_PKEY_free(key)
            throw DTLSIdentityError(step: "X509_new")
        }
        do {
            try fill(certificate, key: key, commonName: commonName)
            let fingerprint = try sha256Fingerprint(of: certificate)
            return DTLSIdentity(key: key, certificate: certificate, fingerprint: fingerprint)
        } catch {
            X509_free(certificate)
            EVP_PKEY_free(key)
            throw error
        }
    }

    private static func fill(_ certificate: OpaquePointer, key: OpaquePointer, commonName: String) throws(DTLSIdentityError) {
        var serial: UInt32 = 0
        guard withUnsafeMutableBytes(of: &serial, { RAND_bytes($0.baseAddress, 4) }) == 1 else { throw DTLSIdentityError(step: "RAND_bytes") }
        guard X509_set_version(certificate, 2) == 1,
            ASN1_INTEGER_set(X509_get_serialNumber(certificate), Int(serial & 0x7FFF_FFFF)) == 1,
            X509_gmtime_adj(X509_getm_notBefore(certificate), -86_400) != nil,
            X509_gmtime_adj(X509_getm_notAfter(certificate), 30 * 86_400) != nil,
            X509_set_pubkey(certificate, key) == 1
        else { throw DTLSIdentityError(step: "setting the certificate fields") }
        guard let name = X509_get_subject_name(certificate),
            X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, commonName, -1, -1, 0) == 1,
            X509_set_issuer_name(certificate, name) == 1
        else { throw DTLSIdentityError(step: "setting the certificate name") }
        guard X509_sign(certificate, key, EVP_sha256()) > 0 else { throw DTLSIdentityError(step: "X509_sign") }
    }

    private static func sha256Fingerprint(of certificate: OpaquePointer) throws(DTLSIdentityError) -> Fingerprint {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(certificate, EVP_sha256(), &digest, &length) == 1 else { throw DTLSIdentityError(step: "X509_digest") }
        let hex = digest.prefix(Int(length)).map { byte in
            let text = String(byte, radix: 16, uppercase: true)
            return byte < 16 ? "0" + text : text
        }
        return Fingerprint(hashFunction: "sha-256", value: hex.joined(separator: ":"))
    }
}
