/// Whose codec order the answer follows.
public enum CodecOrder: String, Sendable, Equatable, CaseIterable {
    /// The offerer's order, which RFC 3264 §6.1 recommends.
    case offerer
    /// Our capability order.
    case ours
}

/// What goes into our answer.
public struct AnswerOptions: Sendable, Equatable {
    public var capabilities: AudioCapabilities
    public var ice: ICEDescription
    public var security: AnswerSecurity
    /// The direction we would like; the answer narrows it by the offer's.
    public var direction: Direction
    public var codecOrder: CodecOrder
    public var sessionId: String
    public var sessionVersion: String
    /// Answer plain RTP/AVP offers (no SRTP). Off by default.
    public var allowUnencrypted: Bool
    public var ssrc: UInt32?
    public var cname: String?
    /// Answering a classic SIP peer's offer: this RTP socket on the m= and c= lines, no ICE
    /// (`ice` is then ignored).
    public var plainTransport: PlainTransport?

    public init(
        capabilities: AudioCapabilities = .standard, ice: ICEDescription, security: AnswerSecurity,
        direction: Direction = .sendrecv, codecOrder: CodecOrder = .offerer, sessionId: String,
        sessionVersion: String = "2", allowUnencrypted: Bool = false, ssrc: UInt32? = nil, cname: String? = nil,
        plainTransport: PlainTransport? = nil
    ) {
        self.capabilities = capabilities
        self.ice = ice
        self.security = security
        self.direction = direction
        self.codecOrder = codecOrder
        self.sessionId = sessionId
        self.sessionVersion = sessionVersion
        self.allowUnencrypted = allowUnencrypted
        self.ssrc = ssrc
        self.cname = cname
        self.plainTransport = plainTransport
    }
}

/// An answer and what it settled on.
public struct Answer: Sendable, Equatable {
    public var description: SessionDescription
    public var audio: NegotiatedAudio
}

extension SessionDescription {
    /// Answers `offer` (RFC 3264 §6, JSEP §5.3): the first usable audio section is accepted with
    /// the offerer's payload numbers; every other section is rejected with port 0.
    public static func answer(to offer: SessionDescription, options: AnswerOptions) throws(NegotiationError) -> Answer {
        var sections: [MediaDescription] = []
        var accepted: NegotiatedAudio?
        var reasons: [String] = []
        for (index, offered) in offer.media.enumerated() {
            let label = offered.label(index: index)
            if accepted == nil {
                switch AudioSectionAnswer.make(offered, session: offer, options: options) {
                case .success(let (section, audio)):
                    sections.append(section)
                    accepted = audio
                    continue
                case .failure(let reason):
                    reasons.append("\(label): \(reason.message)")
                }
            } else {
                reasons.append("\(label): only one audio stream is answered")
            }
            sections.append(rejected(offered))
        }
        guard let audio = accepted else {
            throw NegotiationError(reasons: reasons.isEmpty ? ["the offer has no m= line"] : reasons)
        }
        var attributes: [Attribute] = []
        if let group = offer.attributes.values(Group.self).first(where: \.isBundle), let mid = audio.mid, group.mids.contains(mid) {
            attributes.append(Group(semantics: "BUNDLE", mids: [mid]).attribute)
        }
        let description = SessionDescription(
            origin: MediaSectionWriter.origin(sessionId: options.sessionId, sessionVersion: options.sessionVersion),
            attributes: attributes, media: sections)
        return Answer(description: description, audio: audio)
    }

    /// RFC 3264 §6: a rejected stream keeps its media type, protocol and formats, with port 0.
    private static func rejected(_ offered: MediaDescription) -> MediaDescription {
        var section = MediaDescription(kind: offered.kind, port: 0, proto: offered.proto, formats: offered.formats)
        if let mid = offered.attributes.first(MediaID.self) { section.attributes = [mid.attribute] }
        return section
    }
}

/// The answer to one offered audio section, or why it cannot be accepted.
enum AudioSectionAnswer {
    struct Refusal: Error { let message: String }

    static let supportedProtocols: Set<String> = [
        "UDP/TLS/RTP/SAVPF", "UDP/TLS/RTP/SAVP", "TCP/TLS/RTP/SAVPF", "RTP/SAVPF", "RTP/SAVP", "RTP/AVPF", "RTP/AVP",
    ]

    static func make(_ offered: MediaDescription, session: SessionDescription, options: AnswerOptions) -> Result<(MediaDescription, NegotiatedAudio), Refusal> {
        guard offered.kind == "audio" else { return .failure(Refusal(message: "not audio")) }
        guard !offered.isRejected else { return .failure(Refusal(message: "rejected in the offer (port 0)")) }
        guard supportedProtocols.contains(offered.proto.uppercased()) else {
            return .failure(Refusal(message: "unsupported protocol \(offered.proto)"))
        }
        let security: [Attribute]
        var dtlsRole: SetupRole?
        var acceptedCrypto: Crypto?
        switch chooseSecurity(offered, session: session, options: options) {
        case .success(let choice): (security, dtlsRole, acceptedCrypto) = choice
        case .failure(let refusal): return .failure(refusal)
        }

        let offeredCodecs = offered.codecs
        var audio: [(Codec, CodecCapability, Int)] = []
        for codec in offeredCodecs {
            guard let rank = options.capabilities.codecs.firstIndex(where: { !$0.isTelephoneEvent && $0.matches(codec) }) else { continue }
            audio.append((codec, options.capabilities.codecs[rank], rank))
        }
        if options.codecOrder == .ours { audio.sort { $0.2 < $1.2 } }
        guard !audio.isEmpty else {
            let offeredLabels = offeredCodecs.map(\.label).joined(separator: ", ")
            return .failure(Refusal(message: "no codec in common (offered: \(offeredLabels.isEmpty ? "none" : offeredLabels))"))
        }
        let audioRates = Set(audio.map(\.0.clockRate))
        let offeredEvents = offeredCodecs.compactMap { codec -> (Codec, CodecCapability)? in
            guard codec.isTelephoneEvent, let capability = options.capabilities.codecs.first(where: { $0.isTelephoneEvent && $0.matches(codec) }) else { return nil }
            return (codec, capability)
        }
        // RFC 4733 §7.1.1: telephone-event is answered at the clock rates of the accepted audio
        // codecs. A peer that offers it only at 8000 Hz beside Opus (baresip) sends its keys
        // there all the same: answered, they are heard (received on any rate) rather than lost.
        let atAudioRates = offeredEvents.filter { audioRates.contains($0.0.clockRate) }
        let events = atAudioRates.isEmpty ? offeredEvents.filter { $0.0.clockRate == 8000 } : atAudioRates

        let direction = (offered.attributes.direction ?? session.attributes.direction ?? .sendrecv).answer(wanting: options.direction)
        let mid = offered.attributes.first(MediaID.self)?.tag
        let rtcpMux = offered.attributes.contains(RTCPMux.self)
        let chosen = audio.map { ($0.0.payloadType, $0.1) } + events.map { codec, capability in
            var echoed = capability
            echoed.parameters = codec.parameters ?? capability.parameters
            return (codec.payloadType, echoed)
        }

        let plain = options.plainTransport
        let (port, connection) = plain.map { ($0.port, $0.connection) } ?? MediaSectionWriter.defaultAddress(options.ice)
        var attributes = (plain == nil ? MediaSectionWriter.iceAttributes(options.ice) : []) + security
        if let mid { attributes.append(MediaID(mid).attribute) }
        attributes.append(Attribute(direction.rawValue))
        if rtcpMux { attributes.append(RTCPMux().attribute) }
        if offered.attributes.contains(RTCPReducedSize.self) { attributes.append(RTCPReducedSize().attribute) }
        attributes += MediaSectionWriter.codecAttributes(chosen)
        if let ptime = options.capabilities.ptime { attributes.append(PTime(milliseconds: ptime).attribute) }
        if let ssrc = options.ssrc, let cname = options.cname {
            attributes.append(SSRCAttribute(ssrc: ssrc, name: "cname", value: cname).attribute)
        }
        if plain == nil { attributes += MediaSectionWriter.candidateAttributes(options.ice) }

        var section = MediaDescription(kind: "audio", port: port, proto: offered.proto, formats: chosen.map { String($0.0) })
        section.connections = [connection]
        section.attributes = attributes
        let negotiated = NegotiatedAudio(
            mid: mid, codecs: audio.map(\.0), telephoneEvents: events.map(\.0), direction: direction,
            dtlsRole: dtlsRole, acceptedCrypto: acceptedCrypto, rtcpMux: rtcpMux)
        return .success((section, negotiated))
    }

    private static func chooseSecurity(_ offered: MediaDescription, session: SessionDescription, options: AnswerOptions) -> Result<([Attribute], SetupRole?, Crypto?), Refusal> {
        let offeredFingerprint = offered.attributes.first(Fingerprint.self) ?? session.attributes.first(Fingerprint.self)
        let offeredCryptos = offered.attributes.values(Crypto.self)
        let isDTLSProfile = offered.proto.uppercased().contains("TLS")
        switch options.security {
        case .dtls(let fingerprint, let roleForActpass):
            guard isDTLSProfile || offeredFingerprint != nil else { break }
            guard offeredFingerprint != nil else { return .failure(Refusal(message: "DTLS profile without a=fingerprint")) }
            let offeredRole = offered.attributes.first(SetupRole.self) ?? session.attributes.first(SetupRole.self) ?? .actpass
            let role: SetupRole
            switch offeredRole {
            case .actpass: role = roleForActpass == .passive ? .passive : .active
            case .active: role = .passive
            case .passive: role = .active
            case .holdconn: return .failure(Refusal(message: "a=setup:holdconn offers no DTLS connection"))
            }
            return .success(([fingerprint.attribute, role.attribute], role, nil))
        case .sdes(let keys, let suites):
            guard !offeredCryptos.isEmpty else { break }
            // The offerer lists suites in its order of preference (RFC 4568 §6.1); take its first we accept.
            guard let crypto = offeredCryptos.first(where: { suites.contains($0.suite) }), let key = keys[crypto.suite] else {
                return .failure(Refusal(message: "no SDES crypto suite in common (offered: \(offeredCryptos.map(\.suite).joined(separator: ", ")))"))
            }
            let ours = Crypto(tag: crypto.tag, suite: crypto.suite, keyParameters: key)
            return .success(([ours.attribute], nil, crypto))
        }
        if !isDTLSProfile && offeredCryptos.isEmpty && offered.proto.uppercased().hasPrefix("RTP/AVP") && options.allowUnencrypted {
            return .success(([], nil, nil))
        }
        let offeredKind = isDTLSProfile || offeredFingerprint != nil ? "DTLS-SRTP" : offeredCryptos.isEmpty ? "unencrypted RTP" : "SDES"
        let ours: String
        switch options.security {
        case .dtls: ours = "DTLS-SRTP"
        case .sdes: ours = "SDES"
        }
        return .failure(Refusal(message: "offer uses \(offeredKind); we answer with \(ours)"))
    }
}
