import SDP

/// Why DTLS could not secure the media. Any of these ends the call's media: no SRTP keys exist,
/// so no audio is sent or played.
package enum DTLSError: Error, Sendable, Equatable, CustomStringConvertible {
    case setup(String)
    /// The peer's certificate does not hash to the fingerprint in its SDP.
    case fingerprintMismatch(hashFunction: String)
    case unsupportedFingerprintHash(String)
    case handshakeFailed(String)
    case handshakeTimeout(seconds: Double)
    /// The handshake finished without agreeing on any SRTP profile.
    case noSRTPProfile
    case keyExport
    case closedByPeer

    package var description: String {
        switch self {
        case .setup(let step): "DTLS setup failed: \(step)"
        case .fingerprintMismatch(let hash): "DTLS peer certificate does not match the \(hash) fingerprint in the remote SDP"
        case .unsupportedFingerprintHash(let hash): "unsupported fingerprint hash function \"\(hash)\""
        case .handshakeFailed(let reason): "DTLS handshake failed: \(reason)"
        case .handshakeTimeout(let seconds): "DTLS handshake did not complete within \(seconds) s"
        case .noSRTPProfile: "DTLS handshake agreed on no SRTP protection profile"
        case .keyExport: "exporting DTLS-SRTP keying material failed"
        case .closedByPeer: "the peer closed the DTLS association"
        }
    }
}

/// Our side of the DTLS handshake.
package enum DTLSRole: String, Sendable, Equatable {
    case client
    case server

    /// RFC 5763 §5 / RFC 8842: the answerer picks active (client) or passive (server); an offerer
    /// that said actpass takes the other role. Nil when the pair is not a valid outcome.
    package static func negotiated(local: SetupRole, remote: SetupRole) -> DTLSRole? {
        switch (local, remote) {
        case (.active, .passive), (.active, .actpass): .client
        case (.passive, .active), (.actpass, .active): .server
        case (.actpass, .passive): .client
        default: nil
        }
    }
}
