import Foundation
import ICE
import Logging
import Signaling

/// What sets a recovery going.
enum RecoveryTrigger: Sendable {
    /// The socket closed under us (no network change seen).
    case socketDropped
    /// Addresses, links or routes changed while we have a route to the server.
    case networkChanged
    /// The route to the server now leaves from another address than the socket's: it is dead.
    case socketStranded
    /// The socket did not answer a probe while calls were recovering: it was given up.
    case socketSilent
    /// A call's ICE failed after it was answered.
    case mediaPathLost
    /// A call whose far end could not renegotiate yet tries again.
    case retry
}

/// The reconnection bookkeeping of one client.
struct RecoveryState {
    var userDisconnected = false
    /// Reconnecting gave up (its error went out): no later trigger starts counting again.
    var gaveUp = false
    var punted = false
    var serverAddress: String?
    var socketLocalAddress: String?
    var watch: NetworkWatch?
    var task: Task<Void, Never>?
    var pending: [RecoveryTrigger] = []
    var backoffSleeper: Task<Void, Never>?
    var retryTimer: Task<Void, Never>?
    /// Calls the server re-offered after a re-login, while their re-attach runs: it restarts
    /// their ICE itself when it must, so a recovery pass leaves them alone.
    var reattaching: Set<String> = []
    /// How many re-attach lists (`clientReady`) the client has handled, and who waits for one.
    var reattachLists = 0
    var reattachListWaiters: [CheckedContinuation<Void, Never>] = []
}

/// Keeping the session and its calls through network changes (docs/calls.md, "Reconnection").
///
/// Signalling alive (a ping answered within the probe timeout): each disrupted call restarts ICE
/// through `updateMedia`. Signalling dead: the socket is opened again with the same sessid and
/// `?voice_sdk_id=`, and each call answers the server's re-offer with attach. A socket that drops
/// by itself is retried with exponential backoff, calls or not, so the client stays reachable.
extension VoiceClient {
    // MARK: Watching

    func startWatchingNetwork() {
        let policy = configuration.reconnection
        guard policy.isEnabled, policy.watchesNetwork, recovery.watch == nil else { return }
        let media = configuration.media
        recovery.watch = NetworkWatch.start(logger: logger, concerns: { [weak self] change in
            let server = await self?.recovery.serverAddress
            return (change.concerns(server: server, media: media), change.concernsMedia(media))
        }, settled: { [weak self] changes in
            await self?.evaluateNetwork(mediaChanges: changes)
        })
    }

    func stopRecovery() async {
        await recovery.watch?.close()
        recovery.watch = nil
        recovery.backoffSleeper?.cancel()
        recovery.retryTimer?.cancel()
        recovery.task?.cancel()
        recovery.pending = []
        reattachListHandled(counting: false)
    }

    func noteSocketEndpoints() async {
        guard let endpoints = await verto.socketEndpoints else { return }
        recovery.serverAddress = endpoints.remoteAddress
        recovery.socketLocalAddress = endpoints.localAddress
    }

    private func evaluateNetwork(mediaChanges: [NetworkChange]) async {
        guard !recovery.userDisconnected, let server = recovery.serverAddress else { return }
        let answered = await callsWithMedia()
        guard let source = RouteCheck.sourceAddress(toward: server) else {
            logger.warning("no route to the server at \(server): the network is gone")
            for call in answered { await call.networkLost() }
            eventSink.yield(.networkLost)
            return
        }
        let stranded = recovery.socketLocalAddress.map { $0 != source } ?? true
        // Only calls whose path the changes touch restart ICE (a container's veth coming and
        // going touches none).
        var touched: [Call] = []
        for call in answered where await call.mediaPathTouched(by: mediaChanges) { touched.append(call) }
        logger.debug("network settled: \(touched.count) of \(answered.count) call(s) touched, the socket \(stranded ? "stranded" : "in place")")
        for call in touched { await call.reconnecting(moved: true) }
        // A pass already under way (restarts sent on the socket as it was) sees this change only
        // once it ends, which a request in flight on a dead socket delays by its timeout.
        let passUnderWay = recovery.task != nil
        // A socket stranded on a vanished address is dead even if TCP has not noticed yet: give
        // it up now, so requests in flight on it fail at once and it is reopened at once.
        if stranded {
            if let local = recovery.socketLocalAddress {
                recovery.socketLocalAddress = nil
                await verto.abandonSocket(reason: "its local address \(local) no longer leads to the server")
            }
            requestRecovery(.socketStranded)
        } else if !touched.isEmpty {
            requestRecovery(.networkChanged)
            if passUnderWay { probeSocketNow() }
        } else {
            // Nothing of ours moved, but a call dropped for want of a route can come back now.
            var waiting = false
            for call in answered where await call.isRecovering {
                await call.reconnecting(moved: false)
                waiting = true
            }
            if waiting {
                requestRecovery(.networkChanged)
                if passUnderWay { probeSocketNow() }
            }
        }
        // A waiting retry should not sit out its backoff now that the network is back.
        recovery.backoffSleeper?.cancel()
    }

    func socketDropped() async {
        recovery.socketLocalAddress = nil
        guard configuration.reconnection.isEnabled, !recovery.userDisconnected, !recovery.punted else { return }
        // With no route at all the calls stay dropped; the network's return moves them on.
        let routeLeft = recovery.watch == nil || recovery.serverAddress.map { RouteCheck.sourceAddress(toward: $0) != nil } ?? true
        if routeLeft {
            for call in await callsWithMedia() { await call.reconnecting(moved: false) }
        }
        requestRecovery(.socketDropped)
    }

    // MARK: Recovering

    func requestRecovery(_ trigger: RecoveryTrigger) {
        guard configuration.reconnection.isEnabled, !recovery.userDisconnected, !recovery.gaveUp else { return }
        recovery.pending.append(trigger)
        guard recovery.task == nil else { return }
        // Unstructured: recovery outlives the event that triggered it; at most one runs, and `disconnect` cancels it.
        recovery.task = Task { [weak self] in await self?.runRecovery() }
    }

    private func runRecovery() async {
        // Each pass handles every trigger queued so far; the passes are bounded by the probe,
        // the socket attempts and their limit.
        while !recovery.pending.isEmpty, !Task.isCancelled, !recovery.userDisconnected, !recovery.gaveUp {
            let triggers = recovery.pending
            recovery.pending = []
            await recover(from: triggers)
        }
        recovery.task = nil
    }

    /// Judges the socket as it is now, not as the triggers found it: an earlier pass may have
    /// reopened it already.
    private func recover(from triggers: [RecoveryTrigger]) async {
        logger.debug("recovering after \(triggers.map { "\($0)" }.joined(separator: ", "))")
        if let endpoints = await verto.socketEndpoints, !isStranded(endpoints),
            await verto.probe(timeout: configuration.reconnection.probeTimeout) {
            await restartDisruptedMedia()
            return
        }
        let onlyDropped = triggers.allSatisfy { if case .socketDropped = $0 { true } else { false } }
        await reopenSocket(waitFirst: onlyDropped)
    }

    /// The route to the server leaves from another address than the socket's (or none does).
    private func isStranded(_ endpoints: SocketEndpoints) -> Bool {
        guard recovery.watch != nil else { return false }
        return RouteCheck.sourceAddress(toward: endpoints.remoteAddress) != endpoints.localAddress
    }

    /// A network change while a pass is busy: ask the socket now, with the probe's short timeout,
    /// rather than when that pass ends or when the keepalive finds it idle. One that does not
    /// answer is abandoned and reopened at once.
    private func probeSocketNow() {
        // Unstructured: the probe must not hold up the client's other events; it ends within the probe timeout.
        Task { [weak self] in await self?.probeSocket() }
    }

    /// False when the socket did not answer, was given up, and the recovery reopens it.
    private func probeSocket() async -> Bool {
        guard await verto.abandonIfSilent(timeout: configuration.reconnection.probeTimeout) else { return true }
        requestRecovery(.socketSilent)
        return false
    }

    /// Signalling is alive: every disrupted call restarts ICE through the server, but for one
    /// the server is re-attaching (its re-attach restarts it, and a restart of ours meanwhile
    /// would renegotiate the same media twice at once).
    private func restartDisruptedMedia() async {
        var failed = false
        for call in calls.values where !recovery.reattaching.contains(call.id) {
            guard await call.needsMediaRecovery else { continue }
            // The socket went away during the pass: the pass that reopens it re-attaches every call.
            guard await verto.socketEndpoints != nil else { return }
            do {
                try await call.restartMedia()
            } catch {
                logger.warning("call \(call.id): ICE restart failed: \(error)")
                failed = true
                // A restart that got no answer may mean a dead socket rather than a far end that
                // cannot renegotiate: ask now, not after the keepalive's idle time.
                guard await verto.socketEndpoints != nil, await probeSocket() else { return }
            }
        }
        if failed { scheduleRetry() }
    }

    /// The far end may be reconnecting itself; try again while the calls wait.
    private func scheduleRetry() {
        recovery.retryTimer?.cancel()
        let interval = configuration.reconnection.retryInterval
        // Unstructured: a retry timer the recovery cancels when the network settles first.
        recovery.retryTimer = Task { [weak self] in
            guard (try? await Task.sleep(for: interval)) != nil else { return }
            await self?.retryIfStillDisrupted()
        }
    }

    private func retryIfStillDisrupted() async {
        for call in calls.values where !recovery.reattaching.contains(call.id) {
            guard await call.needsMediaRecovery else { continue }
            requestRecovery(.retry)
            return
        }
    }

    /// Signalling is dead: open the socket again (same sessid), with backoff between failures.
    private func reopenSocket(waitFirst: Bool) async {
        let policy = configuration.reconnection
        var attempt = 0
        while !recovery.userDisconnected, !recovery.punted, !Task.isCancelled {
            if attempt > 0 || waitFirst {
                let delay = policy.delay(beforeAttempt: attempt + 1, random: Double.random(in: -1...1), callsWaiting: await hasCallsWaiting())
                eventSink.yield(.reconnecting(attempt: attempt + 1, delay: delay))
                logger.info("reconnecting in \(delay) (attempt \(attempt + 1))")
                await backoff(delay)
            }
            attempt += 1
            // With no route there is nothing to try; the network monitor wakes us when one returns.
            if recovery.watch != nil, let server = recovery.serverAddress, RouteCheck.sourceAddress(toward: server) == nil {
                logger.info("no route to the server yet; waiting for the network")
                continue
            }
            let listsBefore = recovery.reattachLists
            do {
                try await verto.connect()
                await noteSocketEndpoints()
                logger.info("reconnected after \(attempt) attempt(s)")
                await waitForReattachList(after: listsBefore)
                return
            } catch {
                // The `reconnecting` event of the next attempt (or the final error) tells the
                // application; a warning here would print a second line per attempt.
                logger.info("reconnect attempt \(attempt) failed: \(error)")
                if case .authenticationFailed = error { return giveUp(ParleyError(error)) }
                if policy.maximumAttempts > 0, attempt >= policy.maximumAttempts {
                    return giveUp(ParleyError(kind: .reconnectFailed, message: "could not reconnect to the server in \(attempt) attempts: \(ParleyError(error).message)"))
                }
            }
        }
    }

    /// After a re-login the server re-offers every call it kept (`attach`), then lists them
    /// (`clientReady`). A pass that follows the re-login (a trigger queued meanwhile, such as the
    /// closure of the socket we gave up) must know which calls their re-attach takes over, so
    /// the pass that reconnected waits for that list, at most the probe timeout (a server that
    /// sends no list re-attaches nothing). A client with no calls has nothing to wait for.
    private func waitForReattachList(after seen: Int) async {
        guard !calls.isEmpty, recovery.reattachLists == seen, !recovery.userDisconnected else { return }
        let timeout = configuration.reconnection.probeTimeout
        // Unstructured: the timeout must fire while this task is parked on a continuation; cancelled on return.
        let timer = Task { [weak self] in
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            await self?.reattachListHandled(counting: false)
        }
        await withCheckedContinuation { recovery.reattachListWaiters.append($0) }
        timer.cancel()
    }

    private func reattachListHandled(counting: Bool) {
        if counting { recovery.reattachLists += 1 }
        let waiters = recovery.reattachListWaiters
        recovery.reattachListWaiters = []
        waiters.forEach { $0.resume() }
    }

    private func hasCallsWaiting() async -> Bool {
        for call in calls.values where await call.isRecovering { return true }
        return false
    }

    private func backoff(_ delay: Duration) async {
        // Unstructured: `disconnect` cancels the back-off from outside through `backoffSleeper`; awaited here.
        let sleeper = Task { _ = try? await Task.sleep(for: delay) }
        recovery.backoffSleeper = sleeper
        await sleeper.value
        recovery.backoffSleeper = nil
    }

    private func giveUp(_ error: ParleyError) {
        recovery.gaveUp = true
        recovery.pending = []
        eventSink.yield(.error(error))
        let lost = Array(calls.values)
        // Unstructured: ending the calls must not hold up the client's actor, which they call back into.
        Task {
            for call in lost { await call.endAsLost(error.message) }
        }
    }

    // MARK: The server's side of a re-login

    func reattachOffered(_ offer: VertoOffer) {
        guard let call = calls[offer.callID] else {
            // A call we no longer have (hung up while we were away): end it on the server too.
            logger.info("the server re-offered call \(offer.callID), which we no longer have; hanging it up")
            let verto = verto
            // Unstructured: a best-effort hang-up of a call we no longer hold; nobody waits for its reply.
            Task { _ = try? await verto.bye(callID: offer.callID, cause: .normalClearing) }
            return
        }
        recovery.reattaching.insert(call.id)
        // Unstructured: re-attaching waits for ICE and DTLS, and the client's other events must not.
        Task { [weak self, logger] in
            do throws(ParleyError) {
                try await call.reattach(offer: offer.sdp)
            } catch {
                logger.error("call \(call.id): re-attach failed: \(error)")
                await call.endAsLost("the call could not be re-attached: \(error.message)")
            }
            await self?.reattachEnded(call.id)
        }
    }

    private func reattachEnded(_ callID: String) {
        recovery.reattaching.remove(callID)
    }

    /// A call's path is lost (ICE failed, or a restart failed, its re-attach's included): the
    /// recovery takes it over.
    func pathLost(_ call: Call) {
        recovery.reattaching.remove(call.id)
        requestRecovery(.mediaPathLost)
    }

    /// After a re-login the server lists the calls it re-offers; any other call we were
    /// recovering is gone on its side.
    func serverReattached(_ reattached: [String]) async {
        for call in calls.values where !reattached.contains(call.id) {
            guard await call.isRecovering else { continue }
            await call.endAsLost("the server did not re-attach the call after reconnecting")
        }
        reattachListHandled(counting: true)
    }

    // MARK: Helpers

    private func callsWithMedia() async -> [Call] {
        var answered: [Call] = []
        for call in calls.values where await call.isPastAnswer { answered.append(call) }
        return answered
    }
}
