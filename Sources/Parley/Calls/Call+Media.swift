import ICE

/// Whether a call's media is there: ICE connected, DTLS done, RTP arriving. A recovery counts
/// only once media is back, and a call answered without media never ends as a normal call
/// (docs/calls.md, "Media that never connects").
struct MediaPath: Sendable {
    var iceConnected = false
    var secured = false
    var disrupted = false
    var selectedPair: ICESelectedPair?

    mutating func note(_ event: MediaLegEvent) {
        switch event {
        case .iceState(let state): iceConnected = state == .connected || state == .completed
        case .secured, .unencrypted: secured = true
        case .pathReady: iceConnected = true
        case .disrupted: disrupted = true
        case .restored: disrupted = false
        case .selectedPair(let pair): selectedPair = pair
        default: break
        }
    }
}

extension Call {
    /// Media flows now: the path is connected and secured, and RTP has arrived and not stopped.
    /// A held call carries no RTP by design, so for it a connected and secured path is up.
    func mediaIsUp() async -> Bool {
        guard mediaPath.iceConnected, mediaPath.secured else { return false }
        if machine.settledState.isHeld { return true }
        guard !mediaPath.disrupted else { return false }
        return await mediaEverArrived()
    }

    /// The call has had media at some point: DTLS finished and the far end's RTP arrived.
    func mediaEverArrived() async -> Bool {
        guard mediaPath.secured, let leg else { return false }
        return (await leg.statistics().audio?.packetsReceived ?? 0) > 0
    }

    /// Whether a settled burst of network changes (on interfaces media may use) touches this
    /// call's media path or may offer it a better one: an address added, the address it sends
    /// from removed, or the route to the far end now leaving from another address. A link or
    /// route that does not move the path (a container's veth coming and going) does not.
    func mediaPathTouched(by changes: [NetworkChange]) -> Bool {
        guard !changes.isEmpty else { return false }
        // No path yet, or one through a relay or a mapped address we cannot check by route.
        guard let pair = mediaPath.selectedPair, pair.localType == .host else { return true }
        for change in changes {
            switch change {
            case .addressAdded: return true
            case .addressRemoved(_, let address, _) where address == pair.localAddress: return true
            default: continue
            }
        }
        return RouteCheck.sourceAddress(toward: pair.remoteAddress) != pair.localAddress
    }

    /// The call was answered: its media has `mediaTimeout` to connect.
    func startMediaTimer() {
        let timeout = mediaOptions.mediaTimeout
        guard timers.media == nil, timeout > .zero else { return }
        // Unstructured: a timer the call cancels when media arrives or the call ends first.
        timers.startMedia(Task { [weak self] in
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            await self?.mediaTimerFired()
        })
    }

    private func mediaTimerFired() async {
        guard !machine.state.isDone, !(await mediaEverArrived()) else { return }
        let missing = !mediaPath.iceConnected ? "ICE did not connect" : !mediaPath.secured ? "DTLS did not finish" : "no RTP arrived from the far end"
        logger.error("call \(id): no media \(mediaOptions.mediaTimeout) after the answer (\(missing))")
        await end(TerminationReason(localStatus: .noMedia),
                  failure: ParleyError(kind: .mediaTimeout, message: "no media within \(mediaOptions.mediaTimeout) of the answer: \(missing)"),
                  notifyServer: true)
    }

    /// The far end went silent mid-call (`rtpTimeout`): a peer gone without a bye. Only an
    /// active call ends for it; a held one expects nothing, and one reconnecting has its own
    /// deadline (`reconnectTimeout`).
    func mediaStopped() async {
        guard machine.state == .active else { return }
        let timeout = mediaOptions.rtpTimeout
        logger.error("call \(id): no RTP or RTCP from the far end for \(timeout); ending it")
        await end(TerminationReason(localStatus: .noMedia),
                  failure: ParleyError(kind: .mediaTimeout, message: "no RTP or RTCP from the far end for \(timeout) (--rtp-timeout): it went away without hanging up"),
                  notifyServer: true)
    }

    /// A classic SIP peer's re-offer may move its media to a new address or port (docs/sip.md,
    /// "Media per peer"); the call's sockets follow. One that cannot be followed keeps the media
    /// where they were, as before.
    func followMovedMedia(_ offer: String) async {
        guard let leg else { return }
        do {
            try await leg.followPeer(reoffer: offer)
        } catch {
            logger.warning("call \(id): the far end's re-offer moved its media where we cannot follow: \(error)")
        }
    }

    /// A re-offer inside an SDES call may carry new keys (docs/sip.md, "Media per peer"): `answer`
    /// with our `a=crypto` line for the one accepted, the session re-keyed when the peer's changed.
    /// One we cannot take throws, and the session stays as it was.
    func answerMediaKeys(reoffer: String, answer: String) async throws(ParleyError) -> String {
        guard let leg else { return answer }
        return try await leg.answerKeys(reoffer: reoffer, answer: answer)
    }

    /// Our re-offer with our one SDES key in use (MediaLeg+SDESRekey.swift).
    func reofferMediaKeys(_ offer: String) async -> String {
        guard let leg else { return offer }
        return await leg.reofferKeys(offer)
    }

    /// The peer's answer to our re-offer may carry a new SDES key (MediaLeg+SDESRekey.swift);
    /// one that cannot be taken leaves the keys as they were.
    func takeAnsweredMediaKeys(_ answer: String) async {
        do {
            try await leg?.takeAnsweredKeys(answer)
        } catch {
            logger.warning("call \(id): the far end's answer to our re-offer: \(error)")
        }
    }

    func amendEndingWithoutMedia() async {
        guard case .done(let reason) = machine.state, answered, !(await mediaEverArrived()),
              let amended = Self.endingWithoutMedia(reason) else { return }
        machine.amendEnding(amended)
    }

    /// How an answered call that never had media ended: not normally, whoever cleared it
    /// (`no-media`); except one sent on at once (a transfer completed or a forward followed
    /// before the first packet came), whose ending says where it went. Nil: the ending stands.
    static func endingWithoutMedia(_ reason: TerminationReason) -> TerminationReason? {
        guard reason.isNormal, reason.localStatus != .sessionCompleted, reason.localStatus != .callForwarded else { return nil }
        return reason.with(localStatus: .noMedia)
    }
}
