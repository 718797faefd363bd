import CSRTP

/// The SRTP protection profiles Parley speaks: DTLS-SRTP profiles (RFC 5764, RFC 7714) and the
/// SDES crypto suites of the same transforms (RFC 4568, RFC 6188).
package enum SRTPProfile: String, Sendable, CaseIterable, Equatable {
    case aeadAES256GCM = "AEAD_AES_256_GCM"
    case aeadAES128GCM = "AEAD_AES_128_GCM"
    case aes256CMHMACSHA1_80 = "AES_256_CM_HMAC_SHA1_80"
    case aes256CMHMACSHA1_32 = "AES_256_CM_HMAC_SHA1_32"
    case aes128CMHMACSHA1_80 = "AES_CM_128_HMAC_SHA1_80"
    case aes128CMHMACSHA1_32 = "AES_CM_128_HMAC_SHA1_32"

    /// The suite name as written in `a=crypto`.
    var sdesSuite: String { rawValue }

    package init?(sdesSuite: String) { self.init(rawValue: sdesSuite) }

    /// The DTLS use_srtp profile id (IANA "DTLS-SRTP Protection Profiles"), for those DTLS offers.
    var dtlsProfileID: UInt { switch self {
        case .aes128CMHMACSHA1_80: 0x0001
        case .aes128CMHMACSHA1_32: 0x0002
        case .aeadAES128GCM: 0x0007
        case .aeadAES256GCM: 0x0008
        case .aes256CMHMACSHA1_80, .aes256CMHMACSHA1_32: 0
        }
    }

    /// OpenSSL's name for the DTLS profile.
    var openSSLName: String? { switch self {
        case .aes128CMHMACSHA1_80: "SRTP_AES128_CM_SHA1_80"
        case .aes128CMHMACSHA1_32: "SRTP_AES128_CM_SHA1_32"
        case .aeadAES128GCM: "SRTP_AEAD_AES_128_GCM"
        case .aeadAES256GCM: "SRTP_AEAD_AES_256_GCM"
        case .aes256CMHMACSHA1_80, .aes256CMHMACSHA1_32: nil
        }
    }

    /// The profiles DTLS-SRTP offers, strongest first.
    package static let dtlsProfiles: [SRTPProfile] = [.aeadAES256GCM, .aeadAES128GCM, .aes128CMHMACSHA1_80, .aes128CMHMACSHA1_32]

    package init?(dtlsProfileID: UInt) {
        guard let profile = Self.dtlsProfiles.first(where: { $0.dtlsProfileID == dtlsProfileID }) else { return nil }
        self = profile
    }

    var keyLength: Int { switch self {
        case .aeadAES256GCM, .aes256CMHMACSHA1_80, .aes256CMHMACSHA1_32: 32
        case .aeadAES128GCM, .aes128CMHMACSHA1_80, .aes128CMHMACSHA1_32: 16
        }
    }

    var saltLength: Int { switch self {
        case .aeadAES256GCM, .aeadAES128GCM: 12
        default: 14
        }
    }

    /// Master key plus master salt.
    package var masterLength: Int { keyLength + saltLength }

    func setPolicies(rtp: inout srtp_crypto_policy_t, rtcp: inout srtp_crypto_policy_t) {
        switch self {
        case .aeadAES256GCM:
            srtp_crypto_policy_set_aes_gcm_256_16_auth(&rtp)
            srtp_crypto_policy_set_aes_gcm_256_16_auth(&rtcp)
        case .aeadAES128GCM:
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&rtp)
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&rtcp)
        case .aes256CMHMACSHA1_80:
            srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80(&rtp)
            srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80(&rtcp)
        case .aes256CMHMACSHA1_32:
            srtp_crypto_policy_set_aes_cm_256_hmac_sha1_32(&rtp)
            // SRTCP always uses the 80-bit tag (RFC 4568 §6.2.2, RFC 5764 §4.1.2).
            srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80(&rtcp)
        case .aes128CMHMACSHA1_80:
            srtp_crypto_policy_set_rtp_default(&rtp)
            srtp_crypto_policy_set_rtp_default(&rtcp)
        case .aes128CMHMACSHA1_32:
            srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32(&rtp)
            srtp_crypto_policy_set_rtp_default(&rtcp)
        }
    }
}

/// Keys for both directions of one SRTP session. Never printed.
package struct SRTPKeyingMaterial: Sendable, Equatable, CustomStringConvertible {
    package var profile: SRTPProfile
    /// Master key || salt we protect with.
    package var localMasterKey: [UInt8]
    /// Master key || salt the peer protects with.
    package var remoteMasterKey: [UInt8]

    package init(profile: SRTPProfile, localMasterKey: [UInt8], remoteMasterKey: [UInt8]) {
        self.profile = profile
        self.localMasterKey = localMasterKey
        self.remoteMasterKey = remoteMasterKey
    }

    package var description: String { "SRTPKeyingMaterial(profile: \(profile.rawValue), keys: <redacted>)" }
}
