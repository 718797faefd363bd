import ICE
import Media
import SDP

/// Media for a classic SIP peer (a desk phone, a trunk, a softphone without ICE): RTP/AVP or
/// RTP/SAVP with SDES keys on a pair of UDP sockets aimed at the peer's c= and m= lines, no ICE,
/// no DTLS (docs/sip.md, "Media per peer"). Our offer says what `MediaOptions.mediaProfile`
/// asks; our answer follows the offer, and takes unencrypted RTP only with `.plain`.
extension MediaLeg {
    /// The SDES suites our offer names, in our order: the two every SDES phone has (RFC 4568
    /// §6.2), AES-128 with an 80-bit tag first.
    static let offeredSDESSuites = ["AES_CM_128_HMAC_SHA1_80", "AES_CM_128_HMAC_SHA1_32"]

    /// Whether an offer's text describes media without ICE (no a=ice-ufrag anywhere), so that
    /// the call answers it on sockets of its own rather than with an agent.
    package static func isWithoutICE(offer text: String) -> Bool {
        (try? SDPParser().parse(text))?.isWithoutICE ?? false
    }

    func makeOfferWithoutICE(on sockets: PlainRTPSockets) throws(ParleyError) -> String {
        let security: OfferSecurity
        if options.mediaProfile == .sdes {
            var cryptos: [Crypto] = []
            for (index, suite) in Self.offeredSDESSuites.enumerated() {
                guard let key = SDESKeys.inlineKey(for: suite) else { throw .negotiation("could not draw SDES keys from the random generator") }
                cryptos.append(Crypto(tag: index + 1, suite: suite, keyParameters: key))
            }
            offeredCryptos = cryptos
            security = .sdes(cryptos)
        } else {
            security = .none
        }
        var description = SessionDescription.audioOffer(OfferOptions(
            capabilities: options.capabilities, ice: ICEDescription(ufrag: "", password: ""), security: security,
            sessionId: sdpSessionID, ssrc: localSSRC, cname: cname,
            plainTransport: PlainTransport(address: sockets.localAddress, port: sockets.rtpPort)))
        try munge(&description, direction: .sent, type: .offer)
        noteOfferedTelephoneEvents(description)
        return sent(description, as: .offer)
    }

    func applyAnswerWithoutICE(_ description: SessionDescription) throws(ParleyError) {
        guard let section = description.media.first(where: { $0.kind == "audio" && !$0.isRejected }) else {
            throw .negotiation("the answer accepted no audio section")
        }
        guard let transport = PlainRemoteTransport(section, session: description) else {
            throw .negotiation("the answer's audio names no address and port (c= and m= lines)")
        }
        var configuration = try Self.configuration(for: section, cname: cname)
        Self.sendEventsAtEightKilohertz(&configuration, section: section)
        for payloadType in offeredTelephoneEvents where !configuration.receivedTelephoneEventPayloadTypes.contains(payloadType) {
            configuration.receivedTelephoneEventPayloadTypes.append(payloadType)
        }
        let security = try securityOfAnswer(section)
        negotiatedDirection = (section.attributes.direction ?? description.attributes.direction ?? .sendrecv).answer(wanting: wantedDirection)
        try begin(configuration: &configuration, security: security, remote: .plain(transport))
    }

    func answerWithoutICE(_ offer: SessionDescription, on sockets: PlainRTPSockets) throws(ParleyError) -> String {
        if let offered = offer.media.first(where: { $0.kind == "audio" && !$0.isRejected }),
            offered.attributes.values(Crypto.self).isEmpty, !offered.proto.uppercased().contains("TLS"), options.mediaProfile != .plain {
            throw .negotiation("the offer is unencrypted RTP (\(offered.proto) without a=crypto); Parley answers it only with --media plain")
        }
        let security = try Self.freshSDESAnswerSecurity()
        let answer: Answer
        do {
            answer = try SessionDescription.answer(to: offer, options: AnswerOptions(
                capabilities: options.capabilities, ice: ICEDescription(ufrag: "", password: ""), security: security,
                codecOrder: options.codecOrder, sessionId: sdpSessionID, allowUnencrypted: options.mediaProfile == .plain,
                ssrc: localSSRC, cname: cname, plainTransport: PlainTransport(address: sockets.localAddress, port: sockets.rtpPort)))
        } catch {
            throw .negotiation(error.description)
        }
        var description = answer.description
        try munge(&description, direction: .sent, type: .answer)
        guard let index = description.media.firstIndex(where: { !$0.isRejected }), offer.media.indices.contains(index) else {
            throw .negotiation("no audio section was accepted")
        }
        guard let transport = PlainRemoteTransport(offer.media[index], session: offer) else {
            throw .negotiation("the offer's audio names no address and port (c= and m= lines)")
        }
        offeredDirection = offer.media[index].attributes.direction ?? offer.attributes.direction ?? .sendrecv
        negotiatedDirection = description.media[index].attributes.direction ?? answer.audio.direction
        var negotiatedSection = offer.media[index]
        negotiatedSection.formats = description.media[index].formats
        var configuration = try Self.configuration(for: negotiatedSection, cname: cname)
        Self.sendEventsAtEightKilohertz(&configuration, section: negotiatedSection)
        let mediaSecurity: MediaSecurity
        if let accepted = answer.audio.acceptedCrypto {
            guard let ours = description.media[index].attributes.values(Crypto.self).first else {
                throw .negotiation("our answer lost its a=crypto line (a munging rule?)")
            }
            do {
                mediaSecurity = try MediaSecurity.sdes(local: ours, remote: accepted)
            } catch {
                throw .negotiation(error.description)
            }
            answerSecurity = security
            sdesInUse = SDESPair(local: ours, remote: accepted)
        } else {
            mediaSecurity = .unencrypted
        }
        try begin(configuration: &configuration, security: mediaSecurity, remote: .plain(transport))
        return sent(description, as: .answer)
    }

    /// Aims the sockets at the peer and starts reading them: the path is ready at once.
    func aimPlainSockets(at transport: PlainRemoteTransport, session: MediaSession) throws(ParleyError) {
        guard let plainSockets else { return }
        do {
            try plainSockets.start(
                remoteAddress: transport.address, rtpPort: transport.rtpPort, rtcpAddress: transport.rtcpAddress,
                rtcpPort: transport.rtcpPort, rtcpMux: transport.rtcpMux
            ) { [weak session] bytes in session?.receive(bytes) ?? false }
        } catch {
            throw .negotiation(error.description)
        }
        plainRemote = transport
        let rtcp = transport.rtcpMux ? "rtcp-mux" : "RTCP to \(transport.rtcpAddress):\(transport.rtcpPort)"
        logger.info("media without ICE: RTP from \(plainSockets.localAddress):\(plainSockets.rtpPort) to \(transport.address):\(transport.rtpPort), \(rtcp)")
        iceConnected = true
        continuation.yield(.pathReady)
    }

    /// SDES keys for each suite we accept, for an answer that takes the offerer's first.
    static func freshSDESAnswerSecurity() throws(ParleyError) -> AnswerSecurity {
        var keys: [String: String] = [:]
        for suite in SDESKeys.suites {
            guard let key = SDESKeys.inlineKey(for: suite) else { throw .negotiation("could not draw SDES keys from the random generator") }
            keys[suite] = key
        }
        return .sdes(keys: keys, suites: SDESKeys.suites)
    }

    /// The telephone-event payload types of our offer: the far end sends digits on any of them.
    func noteOfferedTelephoneEvents(_ description: SessionDescription) {
        offeredTelephoneEvents = description.media.first { $0.kind == "audio" }?.codecs.filter(\.isTelephoneEvent).compactMap { UInt8(exactly: $0.payloadType) } ?? []
    }

    /// A peer that has telephone-event only at 8000 Hz beside Opus (baresip, browsers over SIP)
    /// gets our keys there too, in RTP, rather than in INFO: it takes them there. Always without
    /// ICE; with ICE when `MediaOptions.sendsEventsAtEightKilohertzBesideOtherClocks` says (SIP).
    static func sendEventsAtEightKilohertz(_ configuration: inout MediaSessionConfiguration, section: MediaDescription) {
        guard configuration.telephoneEventPayloadType == nil, configuration.codec.clockRate != 8000,
            let event = section.codecs.first(where: { $0.isTelephoneEvent && $0.clockRate == 8000 }),
            let payloadType = UInt8(exactly: event.payloadType)
        else { return }
        configuration.telephoneEventPayloadType = payloadType
        configuration.telephoneEventClockRate = 8000
    }

    private static func configuration(for section: MediaDescription, cname: String) throws(ParleyError) -> MediaSessionConfiguration {
        do {
            return try MediaSessionConfiguration.negotiated(remote: section, cname: cname)
        } catch {
            throw ParleyError(error)
        }
    }

    /// The keys the peer's answer chose from our offer: SDES by the tag it names, or none when
    /// we offered plain RTP and it answered so.
    private func securityOfAnswer(_ section: MediaDescription) throws(ParleyError) -> MediaSecurity {
        let answered = section.attributes.values(Crypto.self)
        guard !offeredCryptos.isEmpty else {
            guard answered.isEmpty, !section.proto.uppercased().contains("SAVP") else {
                throw .negotiation("the answer asks for SRTP (\(section.proto)); we offered plain RTP/AVP")
            }
            return .unencrypted
        }
        guard let theirs = answered.first, let ours = offeredCryptos.first(where: { $0.tag == theirs.tag }) else {
            throw .negotiation("the answer has no a=crypto line matching our SDES offer: it refused SRTP")
        }
        do {
            let security = try MediaSecurity.sdes(local: ours, remote: theirs)
            sdesInUse = SDESPair(local: ours, remote: theirs)
            return security
        } catch {
            throw .negotiation(error.description)
        }
    }
}
