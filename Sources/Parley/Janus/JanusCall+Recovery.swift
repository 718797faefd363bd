import ICE
import Signaling

/// Keeping a Janus call through a network change: an ICE restart offered on the same handle
/// while the Janus session lives. A session that is lost (socket closed, session timeout) ends
/// the call with a typed `session-lost` or `socket` error: Janus has no re-attach.
extension JanusCall {
    /// Restarts ICE: a new offer (new credentials, fresh candidates) on the same handle, and
    /// Janus' answer applied. Media keeps the old pair until the new one is selected.
    public func restartMedia() async throws(ParleyError) {
        guard state == .active || state == .reconnecting, let handle else {
            throw ParleyError(kind: .callState, message: "cannot restart the media of a Janus call that is \(state.name)")
        }
        guard !restarting else { throw ParleyError(kind: .callState, message: "an ICE restart is already under way") }
        restarting = true
        defer { restarting = false }
        setState(.reconnecting)
        let offer = try await leg.restartOffer()
        let body: JSONValue
        switch destination {
        case .echoTest: body = ["audio": true, "video": false]
        case .audioBridge: body = ["request": "configure"]
        }
        try await leg.applyRestartAnswer(try await exchange(offer: offer, body: body, handle: handle))
        logger.info("Janus call: ICE restarted on handle \(handle)")
        setState(.active)
        eventSink.yield(.recovered(.iceRestart))
    }

    /// The media path failed or the network moved: restart ICE, or end the call if Janus will
    /// not take the offer.
    func recoverMediaPath() async {
        guard !restarting, !state.isDone else { return }
        do {
            try await restartMedia()
        } catch {
            logger.error("Janus call: ICE restart failed: \(error)")
            await end(TerminationReason(localStatus: .networkLost), failure: error, notifyServer: true)
        }
    }

    func watchNetwork() {
        guard monitor == nil else { return }
        do {
            let monitor = try NetworkMonitor()
            self.monitor = monitor
            let changes = monitor.events
            let media = mediaOptions
            Task { [weak self] in
                for await change in changes where change.concerns(server: nil, media: media) && change.concernsMedia(media) {
                    await self?.networkMoved()
                }
            }
        } catch {
            logger.warning("not watching the network (\(error)); a Janus call restarts ICE only when its path fails")
        }
    }

    private func networkMoved() {
        guard state == .active, networkSettling == nil else { return }
        networkSettling = Task { [weak self] in
            try? await Task.sleep(for: .milliseconds(50))
            await self?.networkSettled()
        }
    }

    private func networkSettled() async {
        networkSettling = nil
        guard state == .active else { return }
        await recoverMediaPath()
    }
}
