import ICE
import Media
import SDP

/// Keeping a call's media across a network change: an ICE restart we offer, or a re-offer from
/// the far end (its ICE restart, or the server's re-attach after we logged in again). The media
/// session, its DTLS keys and its audio go on untouched; only the path under them changes, and
/// packets keep using the old path until the new one is selected.
extension MediaLeg {
    /// Our ICE-restart offer: new credentials, a fresh gathering on today's addresses, the same
    /// codecs and DTLS identity.
    package func restartOffer() async throws(ParleyError) -> String {
        guard session != nil, !stopped else { throw ParleyError(kind: .callState, message: "no media to restart yet") }
        let ice = try await restartICE(keepingCredentials: false)
        sdpVersion += 1
        var description = SessionDescription.audioOffer(OfferOptions(
            capabilities: options.capabilities, ice: ice, security: .dtls(identity.fingerprint), direction: wantedDirection,
            sessionId: sdpSessionID, sessionVersion: String(2 + sdpVersion), ssrc: localSSRC, cname: cname))
        try munge(&description, direction: .sent, type: .offer)
        return sent(description, as: .restartOffer)
    }

    /// Applies the far end's answer to our ICE-restart offer: its new credentials and candidates.
    func applyRestartAnswer(_ text: String) throws(ParleyError) {
        let remote = try RemoteMedia(received(text, as: .restartAnswer))
        adoptRemoteICE(remote)
        try followAssociation(answeredBy: remote, offered: .actpass, iceRestarted: true)
        settleDirection(answeredWith: remote)
    }

    /// Answers a re-offer for the running media. Our ICE restarts when the far end's credentials
    /// changed (its restart) or when `moved` says our own addresses did; otherwise the answer
    /// repeats what we have. `keepingCredentials` is for a re-offer whose answer the far end
    /// will never see (a relaying server re-attaching the other party, whose description
    /// answers ours): our session, ports and credentials stay and only the far end's change
    /// (`ICEAgent.restartRemoteSide`); if our addresses moved, a new session under the same
    /// credentials.
    /// `attach` says the re-offer is the server's `verto.attach` after we logged in again.
    /// Returns the answer, and whether our ICE restarted for it.
    package func answerReoffer(_ text: String, moved: Bool, keepingCredentials: Bool, attach: Bool = false) async throws(ParleyError) -> (sdp: String, restarted: Bool) {
        guard session != nil, !stopped, answerSecurity != nil else {
            throw ParleyError(kind: .callState, message: "no media to renegotiate yet")
        }
        let offer = try received(text, as: attach ? .attachOffer : .reoffer)
        let remote = try RemoteMedia(offer)
        guard let security = answerSecurity(for: remote) else { throw ParleyError(kind: .callState, message: "no media to renegotiate yet") }
        offeredDirection = remote.section.attributes.direction ?? offer.attributes.direction ?? .sendrecv
        let restarts = moved || remote.ufrag != remoteUfrag
        let ice: ICEDescription
        if restarts && keepingCredentials && !moved {
            // A relayed re-attach: the far end answered our description as the switch re-sent
            // it, so it checks the ports and credentials in it. A new port would go unheard
            // behind its firewall while the old one answers its checks; the session stays.
            try restartRemoteSide()
            ice = currentICE()
        } else {
            ice = restarts ? try await restartICE(keepingCredentials: keepingCredentials) : currentICE()
        }
        sdpVersion += 1
        let answer: Answer
        do {
            answer = try SessionDescription.answer(to: offer, options: AnswerOptions(
                capabilities: options.capabilities, ice: ice, security: security, direction: wantedDirection, codecOrder: options.codecOrder,
                sessionId: sdpSessionID, sessionVersion: String(2 + sdpVersion), ssrc: localSSRC, cname: cname))
        } catch {
            throw .negotiation(error.description)
        }
        if let running = session?.configuration.codec.name, answer.audio.codecs.first?.name.lowercased() != running.lowercased() {
            logger.warning("a re-offer settled on \(answer.audio.codecs.first?.name ?? "no codec"); the call keeps \(running)")
        }
        var description = answer.description
        try munge(&description, direction: .sent, type: .answer)
        if restarts { adoptRemoteICE(remote) }
        try followAssociation(answering: remote, with: answer.audio.dtlsRole, iceRestarted: restarts)
        negotiatedDirection = description.media.first { !$0.isRejected }?.attributes.direction ?? answer.audio.direction
        applySending()
        return (sent(description, as: attach ? .attachAnswer : .reanswer), restarts)
    }

    // MARK: Inside

    /// The far end is new, we are not: checks start again with it on the running session.
    private func restartRemoteSide() throws(ParleyError) {
        tricklesCandidates = false
        do {
            try iceAgent().restartRemoteSide()
        } catch {
            throw ParleyError(error)
        }
        logger.info("ICE checks restarted with a new far end on the same ports")
    }

    /// Starts a new ICE session and waits for its candidates: until gathering ends, or for the
    /// vanilla collection timeout (a second in trickle mode, where nothing else bounds it).
    private func restartICE(keepingCredentials: Bool) async throws(ParleyError) -> ICEDescription {
        tricklesCandidates = false
        gathered = []
        gatheringDone = false
        do {
            try iceAgent().restart(keepingCredentials: keepingCredentials)
        } catch {
            throw ParleyError(error)
        }
        await waitForGathering(upTo: gatheringLimit)
        logger.info("ICE restarted with \(gathered.count) local candidates")
        return currentICE()
    }

    func currentICE() -> ICEDescription {
        let credentials = agent?.localCredentials
        let candidates = gathered.compactMap { try? Candidate(attributeValue: String($0.dropFirst("candidate:".count))) }
        return ICEDescription(ufrag: credentials?.ufrag ?? "", password: credentials?.password ?? "", trickle: false, candidates: candidates,
                              gatheringComplete: true)
    }

    func adoptRemoteICE(_ remote: RemoteMedia) {
        remoteUfrag = remote.ufrag
        agent?.setRemoteCredentials(ufrag: remote.ufrag, password: remote.password)
        for line in remote.candidates { addRemoteCandidate(line) }
        if remote.endOfCandidates { agent?.remoteEndOfCandidates() }
    }

    /// The agent a restart needs; media without ICE has none to restart.
    private func iceAgent() throws(ICEError) -> ICEAgent {
        guard let agent else { throw .gatheringFailed(reason: "this call's media has no ICE (a classic SIP peer's); it cannot restart") }
        return agent
    }

    /// How long a description that carries our candidates waits for them: the vanilla collection
    /// timeout, or a second in trickle mode, where the agent itself bounds nothing.
    var gatheringLimit: Duration {
        switch options.iceMode {
        case .trickle: .seconds(1)
        case .vanilla(let collectionTimeout): collectionTimeout
        }
    }

    func waitForGathering(upTo limit: Duration) async {
        guard !gatheringDone, !stopped else { return }
        // Unstructured: the limit must fire while this task is parked on a continuation; cancelled on return.
        let timer = Task { [weak self] in
            try? await Task.sleep(for: limit)
            await self?.releaseGatheringWaiters()
        }
        await withCheckedContinuation { gatheringWaiters.append($0) }
        timer.cancel()
    }

    private func releaseGatheringWaiters() {
        let waiters = gatheringWaiters
        gatheringWaiters = []
        waiters.forEach { $0.resume() }
    }
}
