import ICE
import Logging
import Media
import SDP

/// One call's media: an ICE agent, a DTLS identity and, once the peer's description is known,
/// a media session. It makes our offer or answer, applies the peer's, and starts DTLS as soon as
/// ICE has a working pair. The leg is placed on one shard of its options' media engine when it
/// is made: the agent lives on that shard's network thread and the session ticks on its clock.
/// Packets never pass through this actor: the agent hands them to the session on the network
/// thread.
package actor MediaLeg {
    package nonisolated let events: AsyncStream<MediaLegEvent>
    let continuation: AsyncStream<MediaLegEvent>.Continuation
    /// Nil for media without ICE (a classic SIP peer): `plainSockets` carry it instead.
    let agent: ICEAgent?
    let plainSockets: PlainRTPSockets?
    /// Where this call's packets and ticks run, for its whole life.
    package nonisolated var shard: MediaShard { place.shard }
    private nonisolated let place: ShardPlace
    let identity: DTLSIdentity
    let options: MediaOptions
    let logger: Logger
    let localSSRC = UInt32.random(in: 1...UInt32.max)
    let sdpSessionID = MediaLeg.sessionID()
    let cname = "parley-" + String(UInt32.random(in: 0...UInt32.max), radix: 36)

    private var prepared = false
    var gathered: [String] = []
    var gatheringDone = false
    var gatheringWaiters: [CheckedContinuation<Void, Never>] = []
    /// Off once an ICE restart happened: a restarted session's candidates travel in the
    /// re-offer or re-answer, never trickled on their own.
    var tricklesCandidates = true
    /// Our candidates go to the peer one by one: trickle mode, and a peer that opted in (its
    /// offer's or answer's `trickle` flag). Otherwise our description carries them
    /// (docs/signaling.md, "Trickle ICE").
    private(set) var tricklesToPeer: Bool
    /// What the peer's current description says, to tell a re-offer that restarts ICE from one
    /// that only repeats what we know.
    var remoteUfrag: String?
    /// The role and keys we answered with, reused when we answer a re-offer.
    var answerSecurity: AnswerSecurity?
    /// Where the plain sockets aim (media without ICE), as the peer's description last named it.
    var plainRemote: PlainRemoteTransport?
    /// The peer's certificate and our role in the running DTLS association (nil for SDES).
    var dtlsAssociation: DTLSAssociation?
    /// A new association whose ClientHello waits for the restarted ICE session's pair: sent on
    /// the old path, it would reach the peer's closed connection and wait for a retransmission.
    var handshakeAwaitsPath = false
    var sdpVersion = 1
    /// The telephone-event payload types of our offer: the far end sends digits on any of them.
    var offeredTelephoneEvents: [UInt8] = []
    /// The SDES keys our offer without ICE carried, one per suite (`MediaProfile.sdes`).
    var offeredCryptos: [Crypto] = []
    /// The SDES keys in use, ours and the peer's, as the last offer/answer settled them; nil
    /// without SDES. A re-offer is answered from them (MediaLeg+SDESRekey.swift).
    var sdesInUse: SDESPair?
    var iceConnected = false
    private var selectedPair: ICESelectedPair?
    var session: MediaSession?
    private var source: AudioSourceSwitch?
    private var sink: AudioSinkSwitch?
    private var sessionStarted = false
    private var muted = false
    private var held = false
    /// The direction our next offer or answer asks for: sendonly while we hold the call.
    var wantedDirection: Direction = .sendrecv
    /// Our side of the direction the last offer/answer settled on: no RTP leaves unless it sends.
    var negotiatedDirection: Direction = .sendrecv
    /// The direction of the far end's latest offer: sendonly or inactive while it holds us.
    var offeredDirection: Direction = .sendrecv
    var stopped = false
    private var pumps: [Task<Void, Never>] = []

    /// `withoutICE`: a classic SIP peer's media, on a pair of UDP sockets instead of an agent.
    package init(role: ICEAgentConfiguration.Role, options: MediaOptions, logger: Logger, withoutICE: Bool = false) throws(ParleyError) {
        self.options = options
        self.logger = logger
        do {
            // Before anything opens a descriptor: past the limit the call fails by name, and
            // GLib, which aborts without one, keeps what it needs (FileDescriptorLimit).
            try FileDescriptorLimit.checkRoomForCall()
        } catch {
            throw ParleyError(error)
        }
        let place = options.engine.place()
        if withoutICE {
            agent = nil
            do {
                plainSockets = try PlainRTPSockets(allowedInterfaces: options.allowedInterfaces, ipv6: options.ipv6, loop: place.shard.network)
            } catch {
                place.release()
                throw ParleyError(kind: .socket, message: error.description)
            }
        } else {
            plainSockets = nil
            do {
                agent = try ICEAgent(configuration: options.agentConfiguration(role: role), loop: place.shard.network, logger: logger)
            } catch {
                throw ParleyError(error)
            }
        }
        do {
            identity = try DTLSIdentity.generate()
        } catch {
            agent?.close()
            plainSockets?.close()
            throw ParleyError(kind: .dtlsFailed, message: error.description)
        }
        self.place = place
        if case .trickle = options.iceMode { tricklesToPeer = true } else { tricklesToPeer = false }
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(512))
    }

    /// The peer does not take trickled candidates (a dialled peer whose answer did not opt in):
    /// none leaves from now on.
    package func stopTrickling() {
        tricklesToPeer = false
    }

    // MARK: Descriptions

    /// Our offer: in trickle mode at once, candidates following as events; in vanilla mode once
    /// gathering ends or the collection timeout passes, with every candidate inside.
    package func makeOffer() async throws(ParleyError) -> String {
        if let plainSockets { return try makeOfferWithoutICE(on: plainSockets) }
        try await prepare()
        let ice = await localICE()
        var description = SessionDescription.audioOffer(OfferOptions(
            capabilities: options.capabilities, ice: ice, security: .dtls(identity.fingerprint),
            sessionId: sdpSessionID, ssrc: localSSRC, cname: cname))
        try munge(&description, direction: .sent, type: .offer)
        noteOfferedTelephoneEvents(description)
        return sent(description, as: .offer)
    }

    /// Applies the peer's answer to our offer (also early media's SDP). A second identical
    /// answer (early media, then the answer) changes nothing.
    package func applyAnswer(_ text: String) throws(ParleyError) {
        guard session == nil else {
            options.sdpObserver?(SDPExchange(direction: .received, kind: .answer, sdp: text))
            return
        }
        let description = try received(text, as: .answer)
        if plainSockets != nil { return try applyAnswerWithoutICE(description) }
        let remote = try RemoteMedia(description)
        var configuration: MediaSessionConfiguration
        do {
            configuration = try MediaSessionConfiguration.negotiated(remote: remote.section, cname: cname)
        } catch {
            throw ParleyError(error)
        }
        for payloadType in offeredTelephoneEvents where !configuration.receivedTelephoneEventPayloadTypes.contains(payloadType) {
            configuration.receivedTelephoneEventPayloadTypes.append(payloadType)
        }
        if options.sendsEventsAtEightKilohertzBesideOtherClocks { Self.sendEventsAtEightKilohertz(&configuration, section: remote.section) }
        guard let fingerprint = remote.fingerprint else {
            throw .negotiation("the answer has no a=fingerprint; Parley offers DTLS-SRTP only")
        }
        guard let role = DTLSRole.negotiated(local: .actpass, remote: remote.setup ?? .active) else {
            throw .negotiation("the answer's a=setup:\(remote.setup?.rawValue ?? "") is not a valid reply to actpass")
        }
        negotiatedDirection = (remote.section.attributes.direction ?? description.attributes.direction ?? .sendrecv).answer(wanting: wantedDirection)
        try begin(configuration: &configuration, security: .dtls(identity: identity, role: role, remoteFingerprint: fingerprint), remote: .ice(remote))
    }

    /// Answers the peer's offer and starts the media it describes. Toward a peer that does not
    /// trickle (`peerTrickles` false) the answer waits for our candidates, bounded in time.
    package func answer(_ offerText: String, peerTrickles: Bool = true) async throws(ParleyError) -> String {
        let offer = try received(offerText, as: .offer)
        if let plainSockets { return try answerWithoutICE(offer, on: plainSockets) }
        if !peerTrickles { tricklesToPeer = false }
        try await prepare()
        let ice = await localICE()
        let usesDTLS = offer.media.contains { $0.attributes.contains(named: Fingerprint.attributeName) }
            || offer.attributes.contains(named: Fingerprint.attributeName)
        let security: AnswerSecurity
        if usesDTLS {
            security = .dtls(identity.fingerprint, roleForActpass: .active)
        } else {
            security = try Self.freshSDESAnswerSecurity()
            answerSecurity = security
        }
        let answer: Answer
        do {
            answer = try SessionDescription.answer(to: offer, options: AnswerOptions(
                capabilities: options.capabilities, ice: ice, security: security, codecOrder: options.codecOrder,
                sessionId: sdpSessionID, ssrc: localSSRC, cname: cname))
        } catch {
            throw .negotiation(error.description)
        }
        var description = answer.description
        try munge(&description, direction: .sent, type: .answer)
        guard let index = description.media.firstIndex(where: { !$0.isRejected }) else {
            throw .negotiation("no audio section was accepted")
        }
        let remote = try RemoteMedia(offer, index: index)
        offeredDirection = remote.section.attributes.direction ?? offer.attributes.direction ?? .sendrecv
        negotiatedDirection = description.media[index].attributes.direction ?? answer.audio.direction
        // The offer's attributes (fmtp, ssrc, ptime) in the order our (munged) answer chose.
        var negotiatedSection = remote.section
        negotiatedSection.formats = description.media[index].formats
        var configuration: MediaSessionConfiguration
        do {
            configuration = try MediaSessionConfiguration.negotiated(remote: negotiatedSection, cname: cname)
        } catch {
            throw ParleyError(error)
        }
        if options.sendsEventsAtEightKilohertzBesideOtherClocks { Self.sendEventsAtEightKilohertz(&configuration, section: negotiatedSection) }
        let mediaSecurity: MediaSecurity
        if usesDTLS {
            guard let fingerprint = remote.fingerprint, let role = answer.audio.dtlsRole.flatMap({ DTLSRole.negotiated(local: $0, remote: remote.setup ?? .actpass) }) else {
                throw .negotiation("the offer's DTLS setup cannot be answered")
            }
            mediaSecurity = .dtls(identity: identity, role: role, remoteFingerprint: fingerprint)
        } else {
            guard let accepted = answer.audio.acceptedCrypto,
                let ours = description.media[index].attributes.values(Crypto.self).first
            else { throw .negotiation("the offer has neither a=fingerprint nor a usable a=crypto") }
            do {
                mediaSecurity = try MediaSecurity.sdes(local: ours, remote: accepted)
            } catch {
                throw .negotiation(error.description)
            }
            sdesInUse = SDESPair(local: ours, remote: accepted)
        }
        try begin(configuration: &configuration, security: mediaSecurity, remote: .ice(remote))
        return sent(description, as: .answer)
    }

    // MARK: Trickle

    package func addRemoteCandidate(_ line: String) {
        guard let agent else { return }
        do {
            try agent.addRemoteCandidate(line)
        } catch {
            logger.warning("ignored a remote candidate: \(error)")
        }
    }

    package func remoteEndOfCandidates() {
        agent?.remoteEndOfCandidates()
    }

    // MARK: Control

    /// Kept for a session negotiated later (muted while still ringing).
    func setMuted(_ muted: Bool) {
        self.muted = muted
        session?.isMuted = muted
    }

    /// While held (either way) we send no RTP, play silence and expect none; RTCP and ICE
    /// consent keep the path alive.
    package func setHeld(_ held: Bool) {
        self.held = held
        session?.isOnHold = held
        applySending()
    }

    /// RTP leaves only when neither side holds the call and the negotiated direction lets us
    /// send (RFC 3264 §6.1: recvonly and inactive send nothing).
    func applySending() {
        session?.isSendingPaused = held || !negotiatedDirection.sends
    }

    var canSendTelephoneEvents: Bool { session?.configuration.telephoneEventPayloadType != nil }

    package func sendDTMF(_ digits: String) throws(ParleyError) {
        guard let session else { throw ParleyError(kind: .callState, message: "no media yet to send DTMF on") }
        do {
            try session.sendDTMF(digits)
        } catch {
            throw ParleyError(error)
        }
    }

    /// Plays `source` instead of the call's source until it ends. False when cut short.
    package func play(_ prompt: sending any AudioSource) async -> Bool {
        guard let source else { return false }
        return await source.play(prompt)
    }

    /// The negotiated sample rate, once media is configured.
    package var sampleRate: Int? { session?.configuration.audioRate }

    /// The call's switchable source and sink and their rate, for a bot that plays and records
    /// from outside the actor; nil before media is negotiated or after it stopped.
    func audioTaps() -> AudioTaps? {
        guard let source, let sink, let session, !stopped else { return nil }
        return AudioTaps(source: source, sink: sink, sampleRate: session.configuration.audioRate)
    }

    /// The pair's round-trip time is RTCP's (RFC 3550 §6.4.1) on the media it carries: the ICE
    /// agent cannot time its own checks (docs/ice.md).
    package func statistics() -> CallStatistics {
        let audio = session?.statistics()
        let pair = agent?.selectedPair ?? selectedPair
        let rtt = audio?.rttMs.map { Duration.microseconds(Int64(($0 * 1000).rounded())) }
        return CallStatistics(audio: audio, candidatePair: pair?.withRoundTripTime(rtt))
    }

    package func stop() {
        guard !stopped else { return }
        stopped = true
        source?.close()
        session?.stop(clock: shard.clock)
        agent?.setReceiveHandler { _, _ in }
        agent?.close()
        plainSockets?.close()
        place.release()
        for pump in pumps { pump.cancel() }
        for waiter in gatheringWaiters { waiter.resume() }
        gatheringWaiters = []
        continuation.finish()
    }

    // MARK: Inside

    private func prepare() async throws(ParleyError) {
        guard !prepared, let agent else { return }
        prepared = true
        let events = agent.events
        // Unstructured: the agent's event pump lives as long as the leg; `stop` cancels `pumps`.
        pumps.append(Task { [weak self] in
            for await event in events { await self?.handle(event) }
        })
        do {
            try await agent.startGathering()
        } catch {
            throw ParleyError(error)
        }
    }

    private func localICE() async -> ICEDescription {
        guard let agent else { return ICEDescription(ufrag: "", password: "") }
        let credentials = agent.localCredentials
        guard !tricklesToPeer else { return ICEDescription(ufrag: credentials.ufrag, password: credentials.password, trickle: true) }
        await waitForGathering(upTo: gatheringLimit)
        return currentICE()
    }

    /// Where the peer's media comes from: an ICE agent's pair, or sockets aimed at its SDP.
    enum RemotePath {
        case ice(RemoteMedia)
        case plain(PlainRemoteTransport)
    }

    func begin(configuration: inout MediaSessionConfiguration, security: MediaSecurity, remote: RemotePath) throws(ParleyError) {
        configuration.localSSRC = localSSRC
        configuration.disruptionTimeout = options.disruptionTimeout
        configuration.rtpTimeout = options.rtpTimeout
        if case .opus(let payloadType, var settings) = configuration.codec {
            settings.complexity = options.opusComplexity
            configuration.codec = .opus(payloadType: payloadType, settings: settings)
        }
        configuration.decodesAudio = options.decodesReceivedAudio
        configuration.followsClockComplexity = options.adaptsOpusComplexity
        configuration.watchesFirstAudible = options.watchesFirstAudible
        configuration.preferredAudioRate = options.audioRate
        let rate = configuration.audioRate
        let source: AudioSourceSwitch
        let sink: AudioSinkSwitch
        do {
            // Silence is always the shared, pre-encoded loop: a bot's call sends it between
            // prompts, and encoding it per call cost each call an encoder (docs/performance.md).
            let shared = options.sharesLoopedSource || options.source == .silence
            let base = shared ? try options.source.makeSharedLoopSource(sampleRate: rate) : try options.source.makeSource(sampleRate: rate)
            source = AudioSourceSwitch(base: base)
            let sinkBase = try options.sink.makeSink(sampleRate: rate)
            DeviceAudioLink.link(source: base, sink: sinkBase)
            sink = AudioSinkSwitch(base: sinkBase)
        } catch {
            throw ParleyError(error)
        }
        let session: MediaSession
        do {
            let transport: any MediaTransport = if let agent { ICEMediaTransport(agent: agent) } else { PlainMediaTransport(sockets: plainSockets!) }
            session = try MediaSession(configuration: configuration, security: security, transport: transport, source: source, sink: sink)
        } catch {
            sink.close()
            throw ParleyError(error)
        }
        session.isMuted = muted
        session.isSendingPaused = held || !negotiatedDirection.sends
        session.isOnHold = held
        self.session = session
        self.source = source
        self.sink = sink
        agent?.setReceiveHandler { [weak session] bytes, _ in session?.receive(bytes) }
        let mediaEvents = session.events
        // Unstructured: the session's event pump lives as long as the leg; `stop` cancels `pumps`.
        pumps.append(Task { [weak self] in
            for await event in mediaEvents { await self?.handle(event) }
        })
        if case .dtls(_, let role, let fingerprint, _) = security {
            answerSecurity = .dtls(identity.fingerprint, roleForActpass: role == .client ? .active : .passive)
            dtlsAssociation = DTLSAssociation(remoteFingerprint: fingerprint, role: role)
        }
        switch remote {
        case .ice(let remote):
            remoteUfrag = remote.ufrag
            agent?.setRemoteCredentials(ufrag: remote.ufrag, password: remote.password)
            for line in remote.candidates { addRemoteCandidate(line) }
            if remote.endOfCandidates { agent?.remoteEndOfCandidates() }
        case .plain(let transport):
            try aimPlainSockets(at: transport, session: session)
        }
        let audioAt = rate == configuration.codec.clockRate ? "" : " (audio at \(rate) Hz)"
        logger.info("media negotiated: \(configuration.codec.name)/\(configuration.codec.clockRate)\(audioAt), telephone-event \(configuration.telephoneEventPayloadType.map(String.init) ?? "none"), digits received on \(configuration.receivedTelephoneEventPayloadTypes.map(String.init).joined(separator: ","))")
        logger.debug("negotiated payload types", metadata: [
            "codec": "\(configuration.codec.name)=\(configuration.codec.payloadType)",
            "telephone-event-send": "\(configuration.telephoneEventPayloadType.map(String.init) ?? "none")",
            "telephone-event-receive": "\(configuration.receivedTelephoneEventPayloadTypes.map(String.init).joined(separator: ","))",
        ])
        startSessionIfReady()
    }

    private func startSessionIfReady() {
        guard iceConnected, !sessionStarted, !stopped, let session else { return }
        sessionStarted = true
        session.start(on: shard.clock)
    }

    private func handle(_ event: ICEEvent) {
        guard !stopped else { return }
        switch event {
        case .localCandidate(let line):
            gathered.append(line)
            if tricklesToPeer && tricklesCandidates { continuation.yield(.localCandidate(line)) }
        case .gatheringComplete:
            gatheringDone = true
            for waiter in gatheringWaiters { waiter.resume() }
            gatheringWaiters = []
            if tricklesToPeer && tricklesCandidates { continuation.yield(.gatheringComplete) }
        case .state(let state):
            continuation.yield(.iceState(state))
            if state == .connected || state == .completed {
                iceConnected = true
                startSessionIfReady()
            }
        case .selectedPair(let pair):
            selectedPair = pair
            if handshakeAwaitsPath {
                handshakeAwaitsPath = false
                session?.startHandshake()
            }
            continuation.yield(.selectedPair(pair))
        case .warning(let error):
            logger.warning("ICE: \(error)")
        case .failed(let error):
            continuation.yield(.failed(ParleyError(error)))
        }
    }

    private func handle(_ event: MediaEvent) {
        guard !stopped else { return }
        switch event {
        case .secured(let profile): continuation.yield(.secured(profile))
        case .unencrypted: continuation.yield(.unencrypted)
        case .securityFailed(let error): continuation.yield(.failed(ParleyError(error)))
        case .disrupted: continuation.yield(.disrupted)
        case .restored: continuation.yield(.restored)
        case .stopped: continuation.yield(.stopped)
        case .dtmf(let digit, let inBand): continuation.yield(.dtmf(digit.character, inBand: inBand))
        case .remoteGoodbye: continuation.yield(.remoteGoodbye)
        case .firstRTPSent(let payloadType): logger.debug("first RTP sent", metadata: ["payload-type": "\(payloadType)"])
        case .firstRTPReceived(let payloadType): logger.debug("first RTP received", metadata: ["payload-type": "\(payloadType)"])
        case .firstPacketArrived(let instant): continuation.yield(.firstPacketArrived(instant))
        case .firstAudiblePlayed(let instant, let packets): continuation.yield(.firstAudiblePlayed(FirstAudibleSound(at: instant, packetsReceived: packets)))
        }
    }

    static func parse(_ text: String) throws(ParleyError) -> SessionDescription {
        do {
            return try SDPParser().parse(text)
        } catch {
            throw .negotiation("the remote SDP does not parse: \(error)")
        }
    }

    static func sessionID() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(generator.next() >> 1)
    }
}

/// A snapshot of one call's media for statistics.
public struct CallStatistics: Sendable, Equatable {
    public var audio: MediaStatistics?
    public var candidatePair: ICESelectedPair?
}
