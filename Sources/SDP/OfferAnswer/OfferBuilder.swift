/// What goes into our audio offer.
public struct OfferOptions: Sendable, Equatable {
    public var capabilities: AudioCapabilities
    public var ice: ICEDescription
    public var security: OfferSecurity
    public var direction: Direction
    public var sessionId: String
    public var sessionVersion: String
    public var mid: String
    /// Written as `a=ssrc:<ssrc> cname:<cname>` when both are set.
    public var ssrc: UInt32?
    public var cname: String?
    /// A classic SIP peer's offer: this RTP socket on the m= and c= lines, no ICE, no BUNDLE,
    /// no mid (`ice` is then ignored).
    public var plainTransport: PlainTransport?

    public init(
        capabilities: AudioCapabilities = .standard, ice: ICEDescription, security: OfferSecurity,
        direction: Direction = .sendrecv, sessionId: String, sessionVersion: String = "2", mid: String = "0",
        ssrc: UInt32? = nil, cname: String? = nil, plainTransport: PlainTransport? = nil
    ) {
        self.capabilities = capabilities
        self.ice = ice
        self.security = security
        self.direction = direction
        self.sessionId = sessionId
        self.sessionVersion = sessionVersion
        self.mid = mid
        self.ssrc = ssrc
        self.cname = cname
        self.plainTransport = plainTransport
    }
}

extension SessionDescription {
    /// Our audio offer (RFC 3264 §5, JSEP §5.2): one BUNDLEd, rtcp-muxed audio section with our
    /// codecs in preference order.
    public static func audioOffer(_ options: OfferOptions) -> SessionDescription {
        let plain = options.plainTransport
        let (port, connection) = plain.map { ($0.port, $0.connection) } ?? MediaSectionWriter.defaultAddress(options.ice)
        let codecs = options.capabilities.codecs.map { ($0.preferredPayloadType, $0) }
        let proto: String
        var attributes = plain == nil ? MediaSectionWriter.iceAttributes(options.ice) : []
        switch options.security {
        case .dtls(let fingerprint):
            proto = "UDP/TLS/RTP/SAVPF"
            attributes += [fingerprint.attribute, SetupRole.actpass.attribute]
        case .sdes(let cryptos):
            proto = "RTP/SAVP"
            attributes += cryptos.map(\.attribute)
        case .none:
            proto = "RTP/AVP"
        }
        if plain == nil { attributes.append(MediaID(options.mid).attribute) }
        attributes += [Attribute(options.direction.rawValue), RTCPMux().attribute]
        attributes += MediaSectionWriter.codecAttributes(codecs)
        if let ptime = options.capabilities.ptime { attributes.append(PTime(milliseconds: ptime).attribute) }
        if let ssrc = options.ssrc, let cname = options.cname {
            attributes.append(SSRCAttribute(ssrc: ssrc, name: "cname", value: cname).attribute)
        }
        if plain == nil { attributes += MediaSectionWriter.candidateAttributes(options.ice) }

        var audio = MediaDescription(kind: "audio", port: port, proto: proto, formats: codecs.map { String($0.0) })
        audio.connections = [connection]
        audio.attributes = attributes
        return SessionDescription(
            origin: MediaSectionWriter.origin(sessionId: options.sessionId, sessionVersion: options.sessionVersion),
            attributes: plain == nil ? [Group(semantics: "BUNDLE", mids: [options.mid]).attribute] : [],
            media: [audio])
    }
}
