import Foundation
import ICE
import Logging
import Signaling

/// Keeping a phone's calls when its network moves (docs/sip.md, "Keeping calls"). A call whose
/// media path fails, or whose path a network change touches, restarts ICE with a re-INVITE on the
/// flow it has (`restartOrEnd`, as `Call.restartMediaOrEnd` does for Janus). When the flow itself is lost (the server closed the
/// connection, the connection broke, or the address a UDP flow was sent from went away), the
/// phone opens a new one in RFC 5626's spirit: a new connection, REGISTER again from it, and a
/// re-INVITE of each answered call with its new Contact (and an ICE restart, since our addresses
/// may have moved). Attempts back off; when they are spent every call ends with
/// `reconnect-failed`.
extension SIPPhone {
    /// How the phone keeps its calls, from the policy a Verto client reconnects by: off, or on
    /// with each call's reconnect timeout and the flow attempts before giving up (0: no limit).
    public func keepCalls(_ policy: ReconnectionPolicy) {
        flowRecovery.enabled = policy.isEnabled
        flowRecovery.reconnectTimeout = policy.reconnectTimeout
        flowRecovery.attempts = policy.maximumAttempts == 0 ? Int.max : policy.maximumAttempts
    }

    /// What a new call asks when its media path fails: nil (the call ends) when recovery is off.
    var pathRecovery: (@Sendable (Call) async -> Void)? {
        guard flowRecovery.enabled else { return nil }
        return { [weak self] call in await self?.pathLost(call) }
    }

    /// Watches the host's network once, for every call of the phone.
    func watchNetwork() async {
        guard flowRecovery.watch == nil else { return }
        let media = media
        let server = await endpoint.server.host
        flowRecovery.watching(NetworkWatch.start(logger: logger, concerns: { change in
            (change.concerns(server: server, media: media), change.concernsMedia(media))
        }, settled: { [weak self] changes in
            await self?.networkSettled(changes)
        }))
    }

    /// A burst of network changes: a UDP flow whose address no longer leads to the server is
    /// given up for a new one; otherwise each call whose media path the changes touch restarts ICE.
    private func networkSettled(_ changes: [NetworkChange]) async {
        guard flowRecovery.enabled, !flowRecovery.recovering else { return }
        if let stranded = await strandedFlow() {
            logger.warning("the SIP flow's address \(stranded) no longer leads to the server: opening a new flow")
            let abandoned = endpoint
            await recoverFlow(moved: true, lost: nil, reason: "its address \(stranded) went away") {
                await abandoned.close()
            }
            return
        }
        for call in callsByID.values where await call.state == .active {
            guard await call.mediaPathTouched(by: changes) else { continue }
            await call.reconnecting(moved: true)
            await restartOrEnd(call)
        }
    }

    /// The local address of a flow that no longer leads to the server, nil when it still does or
    /// we cannot tell (a server named, not numbered; a WebSocket flow, which has no address).
    private func strandedFlow() async -> String? {
        let local = await endpoint.localHost
        let server = await endpoint.server.host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        guard !local.hasSuffix(".invalid"), server.allSatisfy({ $0.isHexDigit || $0 == "." || $0 == ":" }) else { return nil }
        let source = RouteCheck.sourceAddress(toward: server)
        return source == local ? nil : local
    }

    /// A call's media path failed: ICE restarts by re-INVITE, unless a new flow is being opened,
    /// which re-INVITEs every call once it is up.
    func pathLost(_ call: Call) async {
        await restartOrEnd(call)
    }

    /// Restarts a recovering call's ICE by re-INVITE; a refusal or no answer ends it, as
    /// `Call.restartMediaOrEnd` does, except when the flow went under the re-INVITE: the new
    /// flow's recovery re-INVITEs the call then.
    private func restartOrEnd(_ call: Call) async {
        guard !flowRecovery.recovering, await call.isPastAnswer, !(await call.recovery.renegotiating) else { return }
        do {
            try await call.restartMedia()
        } catch {
            // The flow ended under the re-INVITE: its recovery (flowEnded) takes the call on.
            guard !flowRecovery.recovering, await endpoint.closedError == nil else { return }
            let failure = ParleyError(kind: error.kind, message: "the call's media path was lost and the re-INVITE to restart it failed, as when "
                                      + "the far end has gone (a closed or reloaded browser tab, a phone off the network): \(error.message)")
            logger.error("call \(call.id): \(failure.message)")
            await call.end(TerminationReason(localStatus: .networkLost), failure: failure, notifyServer: true)
        }
    }

    /// The flow `served` ended with `error` under us: a new one is opened for the calls and the
    /// registration. The end of a flow the phone replaced or closed itself is no news.
    func flowEnded(_ served: SIPEndpoint) async {
        guard served === endpoint, let error = await served.closedError, error != .closed else { return }
        logger.warning("the SIP flow ended: \(error)")
        guard flowRecovery.enabled else {
            // Nothing is tried: no BYE or re-INVITE can go out any more, so each call ends.
            for signalling in calls.values { await signalling.flowLost(error) }
            return
        }
        // Not registered and no call: nothing needs a new flow (a phone that failed to register).
        guard await registration.grantedExpiry != nil || !calls.isEmpty else { return }
        await recoverFlow(moved: false, lost: error, reason: error.description) {}
    }

    /// Opens a new flow, registers from it and re-INVITEs each answered call over it; calls not
    /// answered yet end (with the transport's error, when the flow failed), as their INVITE
    /// transaction belonged to the lost flow.
    private func recoverFlow(moved: Bool, lost: SIPTransportError?, reason: String, abandoning: () async -> Void) async {
        guard flowRecovery.begin() else { return }
        await abandoning()
        var kept: [Call] = []
        for (callID, signalling) in calls {
            if let call = callsByID[callID], await call.isPastAnswer {
                await call.reconnecting(moved: moved)
                kept.append(call)
            } else if let lost {
                await signalling.flowLost(lost)
            } else {
                await signalling.flowGivenUp(ParleyError(kind: .sessionLost, message: "the SIP flow was lost before the call was answered: \(reason)"))
            }
        }
        var lastError: ParleyError?
        for attempt in 1...flowRecovery.attempts {
            let delay = flowRecovery.delay(before: attempt)
            newsSink.yield(.reconnecting(attempt: attempt, delay: delay))
            guard (try? await Task.sleep(for: delay)) != nil, !flowRecovery.stopped else { return }
            do throws(ParleyError) {
                try await reopen()
            } catch {
                guard !flowRecovery.stopped else { return }
                logger.warning("SIP flow recovery: attempt \(attempt) failed: \(error.message)")
                lastError = error
                continue
            }
            flowRecovery.end()
            logger.info("SIP flow recovered on attempt \(attempt); re-INVITEing \(kept.count) call(s)")
            newsSink.yield(.ready)
            for call in kept { await restartOrEnd(call) }
            return
        }
        await closeRecovery()
        let failure = ParleyError(kind: .reconnectFailed, message: "the SIP flow could not be opened again in \(flowRecovery.attempts) attempts"
                                  + (lastError.map { ": \($0.message)" } ?? ""))
        logger.error("\(failure.message)")
        newsSink.yield(.error(failure))
        for signalling in calls.values { await signalling.flowGivenUp(failure) }
    }

    /// A new flow to the same server, registered as the old one was; the calls move to it.
    private func reopen() async throws(ParleyError) {
        let fresh = SIPEndpoint(server: await endpoint.server, options: flowRecovery.options, timers: await endpoint.timers)
        flowRecovery.attempting(fresh)
        defer { flowRecovery.attempting(nil) }
        do {
            try await fresh.open()
        } catch {
            throw ParleyError(.sipTransport(error))
        }
        let granted = await registration.grantedExpiry
        let renewed = SIPRegistration(endpoint: fresh, account: account, expiry: granted ?? 0, instance: instance)
        if granted != nil {
            do {
                try await renewed.register()
            } catch {
                await fresh.close()
                throw ParleyError(error)
            }
            // The same instance and reg-id: the registrar replaced the lost flow's binding.
            let bindings = await renewed.bindings.count
            logger.info("SIP flow recovery: registered again; the registrar lists \(bindings) binding(s) for \(account.addressOfRecord)")
        }
        guard !flowRecovery.stopped else {
            // The phone closed while this flow opened: it is not taken.
            await renewed.stopRefreshing()
            await fresh.close()
            throw ParleyError(kind: .callState, message: "the SIP phone closed")
        }
        await registration.stopRefreshing()
        let replaced = endpoint
        endpoint = fresh
        registration = renewed
        await replaced.close()
        for signalling in calls.values { await signalling.moved(to: fresh) }
        await startRouting()
    }

    /// Fewer and quicker attempts: tests against hostile servers need not wait out the backoff.
    func limitFlowRecovery(attempts: Int, firstDelay: Duration) {
        flowRecovery.attempts = attempts
        flowRecovery.firstDelay = firstDelay
    }

    /// The phone closes: no recovery starts or goes on.
    func stopRecovery() async {
        await closeRecovery()
    }

    private func closeRecovery() async {
        let (watch, opening) = flowRecovery.stop()
        await watch?.close()
        await opening?.close()
    }
}
