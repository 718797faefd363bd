import Media
import SDP

/// The DTLS association a call's media runs on: whose certificate the peer must present and
/// which side of the handshake we are. A description from the peer that names another
/// certificate or leads to the other role is a new peer connection (a browser re-attaching from
/// a brand-new RTCPeerConnection, say): its media needs a new association, with new SRTP keys
/// (RFC 5763 §6.6, RFC 8842 §4). The same certificate and role keep the running one.
struct DTLSAssociation: Equatable {
    let remoteFingerprint: Fingerprint
    let role: DTLSRole

    /// Whether `next` needs a new handshake. Fingerprints compare by hash function and bytes:
    /// the hex digits may be written in either case.
    func isReplaced(by next: DTLSAssociation) -> Bool {
        role != next.role || !Self.sameCertificate(remoteFingerprint, next.remoteFingerprint)
    }

    static func sameCertificate(_ one: Fingerprint, _ other: Fingerprint) -> Bool {
        one.hashFunction.lowercased() == other.hashFunction.lowercased() && one.value.uppercased() == other.value.uppercased()
    }

    /// The setup role we answer a re-offer with: the one the association has, so an unchanged
    /// peer keeps it; a peer with a new certificate chooses again, and an `actpass` offer from
    /// it is answered `active`, as a first offer is.
    func answerRole(toOfferFrom fingerprint: Fingerprint?) -> SetupRole {
        guard let fingerprint, !Self.sameCertificate(fingerprint, remoteFingerprint) else {
            return role == .client ? .active : .passive
        }
        return .active
    }
}
