import COpenSSL

/// The digest algorithms of RFC 7616 §3.2 that SIP uses (RFC 8760 adds SHA-256 and
/// SHA-512/256 to RFC 3261's MD5), each with its `-sess` variant. Hashing goes through
/// OpenSSL, which Signaling links already for TLS.
package enum SIPDigestAlgorithm: String, Sendable, CaseIterable {
    case md5 = "MD5"
    case md5Session = "MD5-sess"
    case sha256 = "SHA-256"
    case sha256Session = "SHA-256-sess"
    case sha512_256 = "SHA-512-256"
    case sha512_256Session = "SHA-512-256-sess"

    /// Reads an `algorithm=` value, without regard to case; nil for one we do not support.
    package init?(named name: String) {
        guard let algorithm = Self.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else { return nil }
        self = algorithm
    }

    /// A1 is hashed again with the nonces (RFC 7616 §3.4.2).
    package var isSession: Bool { rawValue.hasSuffix("-sess") }

    /// The hash as lower-case hex, as every digest field is written.
    package func hash(_ text: String) -> String {
        let digest: OpaquePointer? = switch self {
        case .md5, .md5Session: EVP_md5()
        case .sha256, .sha256Session: EVP_sha256()
        case .sha512_256, .sha512_256Session: EVP_sha512_256()
        }
        var output = [UInt8](repeating: 0, count: 64)
        var length: UInt32 = 0
        let bytes = Array(text.utf8)
        let succeeded = EVP_Digest(bytes, bytes.count, &output, &length, digest, nil) == 1
        // OpenSSL refuses only when out of memory or when a FIPS policy bars MD5; an empty
        // hash then makes a response the server refuses, never a crash.
        guard succeeded else { return "" }
        return output.prefix(Int(length)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
