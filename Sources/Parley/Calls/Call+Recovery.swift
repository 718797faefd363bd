import ICE

/// Keeping a call through a network change (docs/calls.md, "Reconnection"), one path for every
/// dialect: the call moves to dropped or reconnecting, its media path comes back by an ICE
/// restart through the signalling (or, for Verto, by answering the server's re-offer after
/// logging in again), and it reports `recovered` — or ends when the reconnect timeout passes.
/// Who sets a recovery going is the call's owner: a `VoiceClient` for Verto calls, the call itself
/// for Janus calls (`restartMediaOrEnd`, `watchNetwork`).
extension Call {
    /// States in which the call has media worth keeping.
    var isPastAnswer: Bool { machine.isPastAnswer }

    /// Dropped or reconnecting: waiting for the client to bring the path back.
    public var isRecovering: Bool { machine.isRecovering }

    /// Its path is disrupted, or our addresses moved since it was set up.
    var needsMediaRecovery: Bool { isPastAnswer && (isRecovering || recovery.networkMoved) }

    /// Restarts ICE through the signalling (Verto `updateMedia`, a Janus re-offer on the same
    /// handle): new credentials and candidates, the same media. The call is reconnecting until
    /// the far end's answer is applied, then reports `recovered(.iceRestart)`. Owners do this
    /// after a network change; a program may ask for it too.
    public func restartMedia() async throws(ParleyError) {
        guard isPastAnswer, leg != nil else {
            throw ParleyError(kind: .callState, message: "cannot restart the media of a call that is \(machine.state)")
        }
        guard !recovery.renegotiating else { throw ParleyError(kind: .callState, message: "the call's media is already being renegotiated") }
        let wasHealthy = !isRecovering
        if wasHealthy { await reconnecting(moved: false) }
        do {
            try await restartICE(reporting: .iceRestart)
        } catch {
            // Our ICE may have restarted already, so the old path cannot be trusted: a healthy
            // call whose restart failed goes to its owner's recovery, which retries within the
            // reconnect timeout (VoiceClient) or ends the call saying why (Janus), instead of
            // sitting in reconnecting until the timeout ends it. Only here, where this restart
            // started the recovery, so a retry that fails does not loop back.
            if wasHealthy { await onPathLost?(self) }
            throw error
        }
    }

    private func restartICE(reporting path: RecoveryPath) async throws(ParleyError) {
        guard isPastAnswer, let leg else {
            throw ParleyError(kind: .callState, message: "cannot restart the media of a call that is \(machine.state)")
        }
        guard recovery.beginRenegotiating() else { throw ParleyError(kind: .callState, message: "the call's media is already being renegotiated") }
        defer { recovery.endRenegotiating() }
        let offer = try await leg.restartOffer()
        let answer = try await signalling.updateMedia(callID: id, offer: offer)
        try await leg.applyRestartAnswer(answer)
        recovery.pathRenewed()
        logger.info("call \(id): ICE restarted through updateMedia")
        await recovered(by: path)
    }

    /// Recovery for a dialect with no re-login (Janus): restart ICE on the same session, or end
    /// the call when the server will not take the offer.
    func restartMediaOrEnd() async {
        guard !recovery.renegotiating, isPastAnswer else { return }
        do {
            try await restartMedia()
        } catch {
            logger.error("call \(id): ICE restart failed: \(error)")
            await end(TerminationReason(localStatus: .networkLost), failure: error, notifyServer: true)
        }
    }

    /// A call with no client watches the host's network itself: a change media may use restarts
    /// ICE.
    func watchNetwork() {
        guard recovery.networkWatch == nil, !machine.state.isDone else { return }
        let media = mediaOptions
        recovery.watching(NetworkWatch.start(logger: logger, concerns: { change in
            (change.concerns(server: nil, media: media), change.concernsMedia(media))
        }, settled: { [weak self] changes in
            await self?.networkSettled(changes)
        }))
    }

    private func networkSettled(_ changes: [NetworkChange]) async {
        guard machine.state == .active, !recovery.renegotiating, mediaPathTouched(by: changes) else { return }
        await reconnecting(moved: true)
        await onPathLost?(self)
    }

    /// The network went away under the call.
    func networkLost() async {
        guard isPastAnswer else { return }
        await apply(.networkLost)
        startRecoveryDeadline()
    }

    /// The owner is bringing the call's path back; `moved` when our addresses changed.
    func reconnecting(moved: Bool) async {
        guard isPastAnswer else { return }
        if moved { recovery.addressesMoved() }
        await apply(.reconnecting)
        startRecoveryDeadline()
    }

    /// Answers the server's re-offer after we logged in again (Verto `attach` with attach:true).
    ///
    /// A relaying server re-offers the far end's last description and hands our answer to it
    /// as a media update, whose answer comes back to us only as trickled candidates, if at all
    /// (docs/signaling.md, "Embedded switch"). So our ICE restarts here only when
    /// the re-offer itself brings new credentials (the far end restarted while we were away).
    /// A regular ICE restart (offer and answer both ways) follows the attach when our addresses
    /// moved, and when our answer restarted: the far end may have re-gathered for it under the
    /// credentials it had, on ports we never hear of, and our new session could then settle on
    /// its old one, which it is about to close.
    func reattach(offer: String) async throws(ParleyError) {
        guard isPastAnswer, let leg else { throw ParleyError(kind: .callState, message: "the call has no media to re-attach") }
        let answer = try await leg.answerReoffer(offer, moved: false, keepingCredentials: false, attach: true)
        try await signalling.reattach(callID: id, sdp: answer.sdp)
        logger.info("call \(id): re-attached after reconnecting")
        if recovery.networkMoved || answer.restarted {
            // The server takes call requests once the new session is ready (after clientReady).
            // The call is attached either way; a failed restart is retried like any other.
            do {
                guard await signalling.waitUntilReady(within: .seconds(10)) else {
                    throw ParleyError(kind: .reconnectFailed, message: "the session did not become ready after re-attaching")
                }
                try await restartICE(reporting: .reattach)
            } catch {
                logger.warning("call \(id): ICE restart after re-attaching failed: \(error); will retry")
                await onPathLost?(self)
            }
        } else {
            recovery.pathRenewed()
            await recovered(by: .reattach)
        }
    }

    /// The far end renegotiates: its ICE restart, or its re-attach relayed by the server.
    func answerMediaUpdate(offer: String, reattach: Bool, reply: MediaUpdateReply) async {
        guard isPastAnswer, let leg else { return await reply(.failure(.notAnswered)) }
        let wasHeld = await leg.farEndHolds
        let answer: (sdp: String, restarted: Bool)
        do {
            // A relayed re-attach's answer reaches the far end only as trickled candidates: our
            // restart keeps its credentials, and if we moved too, our own restart follows.
            answer = try await leg.answerReoffer(offer, moved: reattach ? false : recovery.networkMoved, keepingCredentials: reattach)
        } catch {
            logger.warning("call \(id): could not answer a media update: \(error)")
            return await reply(.failure(.media(error.message)))
        }
        await reply(.success(answer.sdp))
        await followHold(wasHeld: wasHeld)
        if answer.restarted || !recovery.networkMoved {
            recovery.pathRenewed()
            await recovered(by: .remote)
        } else {
            do {
                try await restartICE(reporting: .iceRestart)
            } catch {
                logger.warning("call \(id): ICE restart after the far end's re-attach failed: \(error)")
            }
        }
    }

    /// The signalling side of a recovery is done; it counts once media is back. Until then the
    /// call stays dropped or reconnecting and the reconnect timeout runs on.
    private func recovered(by path: RecoveryPath) async {
        guard isRecovering else { return }
        recovery.signallingDone(by: path)
        await completeRecoveryIfMediaIsBack()
    }

    func completeRecoveryIfMediaIsBack() async {
        guard let path = recovery.pendingPath, isRecovering, await mediaIsUp(), recovery.pendingPath == path else { return }
        recovery.complete()
        await apply(.recovered)
        eventSink.yield(.recovered(path))
    }

    private func startRecoveryDeadline() {
        guard !recovery.hasDeadline, isRecovering else { return }
        let timeout = recovery.reconnectTimeout
        // Unstructured: a deadline the call cancels when recovery succeeds first.
        recovery.arm(deadline: Task { [weak self] in
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            await self?.endAfterReconnectTimeout()
        })
    }

    /// The reconnect timeout passed with the call still not recovered. Nothing is sent: the
    /// signalling is down, and the server ends its side when its own detach timeout passes.
    private func endAfterReconnectTimeout() async {
        recovery.deadlinePassed()
        guard isRecovering else { return }
        await end(TerminationReason(localStatus: .reconnectTimeout),
                  failure: ParleyError(kind: .reconnectTimeout, message: "the call could not be recovered within \(recovery.reconnectTimeout) of losing its network"),
                  notifyServer: false)
    }

    /// The server no longer has the call (it was not among the re-attached sessions).
    func endAsLost(_ message: String) async {
        guard !machine.state.isDone else { return }
        await end(TerminationReason(localStatus: .networkLost), failure: ParleyError(kind: .reconnectFailed, message: message), notifyServer: false)
    }
}
