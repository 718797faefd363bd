import Media
import SDP

/// A new DTLS association on the running media (docs/media.md, "A new DTLS association"): when
/// the peer's re-offer or answer names another certificate or leads to the other setup role,
/// the session gets a new handshake and new SRTP keys; its codec, statistics and recording go
/// on. The same certificate and role keep today's association (the fast path of a hold or an
/// ICE restart).
extension MediaLeg {
    /// After we answered a re-offer with `ourSetup` (active or passive).
    func followAssociation(answering remote: RemoteMedia, with ourSetup: SetupRole?, iceRestarted: Bool) throws(ParleyError) {
        guard let ourSetup, ourSetup == .active || ourSetup == .passive else { return }
        try follow(remote, role: ourSetup == .active ? .client : .server, iceRestarted: iceRestarted)
    }

    /// After the peer answered our offer, which said `offeredSetup`.
    func followAssociation(answeredBy remote: RemoteMedia, offered offeredSetup: SetupRole, iceRestarted: Bool) throws(ParleyError) {
        guard let role = DTLSRole.negotiated(local: offeredSetup, remote: remote.setup ?? .active) else {
            throw .negotiation("the answer's a=setup:\(remote.setup?.rawValue ?? "") is not a valid reply to \(offeredSetup.rawValue)")
        }
        try follow(remote, role: role, iceRestarted: iceRestarted)
    }

    /// The setup role our answer to a re-offer from `remote` takes (DTLSAssociation.answerRole).
    func answerSecurity(for remote: RemoteMedia) -> AnswerSecurity? {
        guard let dtlsAssociation else { return answerSecurity }
        return .dtls(identity.fingerprint, roleForActpass: dtlsAssociation.answerRole(toOfferFrom: remote.fingerprint))
    }

    private func follow(_ remote: RemoteMedia, role: DTLSRole, iceRestarted: Bool) throws(ParleyError) {
        guard let current = dtlsAssociation, let fingerprint = remote.fingerprint, let session else { return }
        let next = DTLSAssociation(remoteFingerprint: fingerprint, role: role)
        guard current.isReplaced(by: next) else { return }
        // A client's first flight waits for the restarted path; a server waits for the peer's.
        let waits = iceRestarted && role == .client
        do {
            try session.replaceSecurity(.dtls(identity: identity, role: role, remoteFingerprint: fingerprint), startingHandshake: !waits)
        } catch {
            throw ParleyError(error)
        }
        dtlsAssociation = next
        answerSecurity = .dtls(identity.fingerprint, roleForActpass: role == .client ? .active : .passive)
        handshakeAwaitsPath = waits
        let why = DTLSAssociation.sameCertificate(current.remoteFingerprint, fingerprint) ? "setup role" : "certificate"
        logger.info("a new DTLS association: the peer's \(why) changed; we are the DTLS \(role.rawValue)")
    }
}
