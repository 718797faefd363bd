import COpenSSL
import Foundation
import SDP

/// SDES master keys (RFC 4568) from OpenSSL's CSPRNG.
package enum SDESKeys {
    /// The suites we accept, strongest first.
    package static let suites = [
        "AEAD_AES_256_GCM", "AEAD_AES_128_GCM", "AES_256_CM_HMAC_SHA1_80", "AES_256_CM_HMAC_SHA1_32",
        "AES_CM_128_HMAC_SHA1_80", "AES_CM_128_HMAC_SHA1_32",
    ]

    /// Master key plus salt length for each suite (RFC 4568 §6.2, RFC 6188 §6, RFC 7714 §12).
    static func keyLength(for suite: String) -> Int? {
        switch suite {
        case "AES_CM_128_HMAC_SHA1_80", "AES_CM_128_HMAC_SHA1_32": 30
        case "AEAD_AES_128_GCM": 28
        case "AEAD_AES_256_GCM": 44
        case "AES_256_CM_HMAC_SHA1_80", "AES_256_CM_HMAC_SHA1_32": 46
        default: nil
        }
    }

    /// `inline:<base64 key||salt>` for `suite`; `nil` for a suite we do not know or when the
    /// random generator fails.
    package static func inlineKey(for suite: String) -> String? {
        guard let length = keyLength(for: suite) else { return nil }
        var key = [UInt8](repeating: 0, count: length)
        guard RAND_bytes(&key, Int32(length)) == 1 else { return nil }
        return "inline:" + Data(key).base64EncodedString()
    }
}

extension SDESKeys {
    /// The master key and salt of an `a=crypto` line for `profile`, or nil when its inline key is
    /// not base64 of the right length. The key never appears in errors or logs.
    package static func masterKey(of crypto: Crypto, profile: SRTPProfile) -> [UInt8]? {
        guard let text = crypto.inlineKey, let data = Data(base64Encoded: text), data.count == profile.masterLength else { return nil }
        return [UInt8](data)
    }
}
