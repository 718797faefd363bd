import SDP

/// How a session's SRTP keys are agreed.
package enum MediaSecurity: Sendable {
    /// DTLS-SRTP (RFC 5763/5764): keys from a handshake whose peer must present `remoteFingerprint`.
    case dtls(identity: DTLSIdentity, role: DTLSRole, remoteFingerprint: Fingerprint, profiles: [SRTPProfile] = SRTPProfile.dtlsProfiles)
    /// SDES (RFC 4568): keys from the `a=crypto` lines of both SDPs.
    case sdes(SRTPKeyingMaterial)
    /// Plain RTP/AVP, no SRTP at all: a classic SIP peer without SRTP, only when the call's
    /// options allow it (docs/sip.md, "Media per peer").
    case unencrypted

    /// Keys from our `a=crypto` line and the peer's chosen one, which must name the same suite.
    package static func sdes(local: Crypto, remote: Crypto) throws(MediaSecurityError) -> MediaSecurity {
        guard let profile = SRTPProfile(sdesSuite: local.suite) else { throw .unsupportedSuite(local.suite) }
        guard remote.suite == local.suite else { throw .suiteMismatch(local: local.suite, remote: remote.suite) }
        guard let localKey = SDESKeys.masterKey(of: local, profile: profile) else { throw .invalidKey(side: "local") }
        guard let remoteKey = SDESKeys.masterKey(of: remote, profile: profile) else { throw .invalidKey(side: "remote") }
        return .sdes(SRTPKeyingMaterial(profile: profile, localMasterKey: localKey, remoteMasterKey: remoteKey))
    }
}

package enum MediaSecurityError: Error, Sendable, Equatable, CustomStringConvertible {
    case unsupportedSuite(String)
    case suiteMismatch(local: String, remote: String)
    case invalidKey(side: String)

    package var description: String {
        switch self {
        case .unsupportedSuite(let suite): "unsupported SRTP crypto suite \(suite)"
        case .suiteMismatch(let local, let remote): "a=crypto suites differ: we offered \(local), the peer chose \(remote)"
        case .invalidKey(let side): "the \(side) a=crypto inline key is not base64 of the suite's key and salt length"
        }
    }
}
