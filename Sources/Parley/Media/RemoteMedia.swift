import SDP

/// What we need from the peer's description of the audio we exchange: its ICE credentials and
/// candidates, its DTLS fingerprint and setup role (or SDES keys), and the section itself.
struct RemoteMedia {
    let section: MediaDescription
    let ufrag: String
    let password: String
    let candidates: [String]
    let endOfCandidates: Bool
    let fingerprint: Fingerprint?
    let setup: SetupRole?
    let cryptos: [Crypto]

    /// Reads the audio section at `index`, or the first accepted audio section.
    init(_ description: SessionDescription, index: Int? = nil) throws(ParleyError) {
        let chosen = index ?? description.media.firstIndex { $0.kind == "audio" && !$0.isRejected }
        guard let chosen, description.media.indices.contains(chosen), !description.media[chosen].isRejected else {
            throw .negotiation("the remote SDP has no accepted audio section")
        }
        let section = description.media[chosen]
        let session = description.attributes
        guard let ufrag = section.attributes.first(ICEUsernameFragment.self)?.ufrag ?? session.first(ICEUsernameFragment.self)?.ufrag,
            let password = section.attributes.first(ICEPassword.self)?.password ?? session.first(ICEPassword.self)?.password
        else {
            throw .negotiation("the remote SDP has no ICE credentials (a=ice-ufrag/a=ice-pwd); Parley needs an ICE peer")
        }
        self.section = section
        self.ufrag = ufrag
        self.password = password
        candidates = section.attributes.filter { $0.name == Candidate.attributeName }.compactMap { $0.value.map { "candidate:" + $0 } }
        endOfCandidates = section.attributes.contains(EndOfCandidates.self) || session.contains(EndOfCandidates.self)
        fingerprint = section.attributes.first(Fingerprint.self) ?? session.first(Fingerprint.self)
        setup = section.attributes.first(SetupRole.self) ?? session.first(SetupRole.self)
        cryptos = section.attributes.values(Crypto.self)
    }
}
