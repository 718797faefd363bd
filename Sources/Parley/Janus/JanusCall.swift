import ICE
import Logging
import Media
import Signaling

/// One call to a Janus server: a session, a plugin handle (EchoTest or AudioBridge) and the media
/// leg that carries its audio. Our offer goes in the plugin message that starts media; our
/// candidates follow as trickle requests (then the completed marker), Janus' as trickle events.
///
/// States: `dialing` while it negotiates, `active` once DTLS has secured the media, `done` when
/// either side hangs up or media fails. Events are the ones a Verto `Call` reports.
public actor JanusCall {
    public nonisolated let events: AsyncStream<CallEvent>
    public nonisolated let destination: JanusDestination
    let eventSink: AsyncStream<CallEvent>.Continuation
    let client: JanusClient
    let leg: MediaLeg
    private let trickle: Bool
    let logger: Logger
    let mediaOptions: MediaOptions
    /// Watches the host's network while the call is up (JanusCall+Recovery.swift).
    var monitor: NetworkMonitor?
    /// A burst of changes (an address and its routes) waits here to be judged once.
    var networkSettling: Task<Void, Never>?
    var restarting = false

    public private(set) var state: CallState = .new
    /// The failure that ended the call, if one did.
    public private(set) var failure: ParleyError?
    public private(set) var isMuted = false
    /// AudioBridge: the display names of the other participants in the room, by Janus' id.
    public private(set) var participants: [Int: String] = [:]
    var handle: Int?
    /// Candidates gathered before our offer reached Janus wait here.
    /// Candidates wait until our offer has gone to Janus.
    private var trickleGate = TrickleGate()
    private var pumps: [Task<Void, Never>] = []
    private var doneWaiters: [CheckedContinuation<TerminationReason, Never>] = []

    // MARK: Dialling

    /// Connects to the Janus WebSocket API at `url`, attaches the destination's plugin and
    /// negotiates media. Returns once Janus has answered; `events` reports the rest.
    /// AudioBridge: creates `room` (48 kHz, Opus) when it does not exist, then joins as `display`.
    public static func dial(url: WebSocketURL, destination: JanusDestination, display: String = "parley", media: MediaOptions,
                            logger: Logger = Logger(label: "parley.janus")) async throws(ParleyError) -> JanusCall {
        let call = try JanusCall(url: url, destination: destination, media: media, logger: logger)
        do {
            try await call.start(display: display)
        } catch {
            await call.abandon(error)
            throw error
        }
        return call
    }

    public static func echoTest(url: WebSocketURL, media: MediaOptions, logger: Logger = Logger(label: "parley.janus")) async throws(ParleyError) -> JanusCall {
        try await dial(url: url, destination: .echoTest, media: media, logger: logger)
    }

    public static func audioBridge(url: WebSocketURL, room: Int, display: String, media: MediaOptions,
                                   logger: Logger = Logger(label: "parley.janus")) async throws(ParleyError) -> JanusCall {
        try await dial(url: url, destination: .audioBridge(room: room), display: display, media: media, logger: logger)
    }

    private init(url: WebSocketURL, destination: JanusDestination, media: MediaOptions, logger: Logger) throws(ParleyError) {
        self.destination = destination
        self.logger = logger
        client = JanusClient(url: url)
        leg = try MediaLeg(role: .controlling, options: media, logger: logger)
        mediaOptions = media
        if case .trickle = media.iceMode { trickle = true } else { trickle = false }
        (events, eventSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1024))
    }

    private func start(display: String) async throws(ParleyError) {
        setState(.dialing)
        do {
            try await client.connect()
        } catch {
            throw ParleyError(error)
        }
        let janusEvents = client.events
        let legEvents = leg.events
        pumps.append(Task { [weak self] in
            for await event in janusEvents { await self?.handle(event) }
        })
        pumps.append(Task { [weak self] in
            for await event in legEvents { await self?.handle(event) }
        })
        let plugin = destination.plugin
        let handle: Int
        do {
            handle = try await client.attach(plugin: plugin)
        } catch {
            throw ParleyError(error)
        }
        self.handle = handle

        let body: JSONValue
        switch destination {
        case .echoTest:
            body = ["audio": true, "video": false]
        case .audioBridge(let room):
            try await JanusAudioBridge.ensureRoom(room, client: client, handle: handle, logger: logger)
            do {
                let joined = try await client.message(handle: handle, body: ["request": "join", "room": .integer(room), "display": .string(display)])
                noteParticipants(joined.data["participants"])
            } catch {
                throw ParleyError(error)
            }
            body = ["request": "configure", "muted": false]
        }
        let answer = try await exchange(offer: try await leg.makeOffer(), body: body, handle: handle)
        try await leg.applyAnswer(answer)
        await flushCandidates()
        watchNetwork()
    }

    /// Sends our offer with `body` on the handle and returns Janus' answer SDP.
    func exchange(offer: String, body: JSONValue, handle: Int) async throws(ParleyError) -> String {
        let reply: JanusPluginResult
        do {
            reply = try await client.message(handle: handle, body: body, jsep: JSEP(type: "offer", sdp: offer))
        } catch {
            throw ParleyError(error)
        }
        guard let answer = reply.jsep, answer.type == "answer" else {
            throw ParleyError(kind: .protocolViolation, message: "Janus \(destination.plugin) replied to our offer without an answer")
        }
        return answer.sdp
    }

    // MARK: Operations

    /// Sends RFC 4733 digits (0-9 * # A-D); needs active media that negotiated telephone-event.
    public func sendDTMF(_ digits: String) async throws(ParleyError) {
        guard state == .active else { throw ParleyError(kind: .callState, message: "cannot send DTMF: the call is \(state.name)") }
        guard await leg.canSendTelephoneEvents else {
            throw ParleyError(kind: .negotiation, message: "cannot send DTMF: Janus did not accept telephone-event")
        }
        try await leg.sendDTMF(digits)
    }

    /// Sends silence instead of the source while muted; the stream stays alive.
    public func setMuted(_ muted: Bool) async {
        isMuted = muted
        await leg.setMuted(muted)
    }

    public func statistics() async -> CallStatistics {
        await leg.statistics()
    }

    /// Hangs up (the handle, then the session); allowed in every state, a no-op once done.
    public func hangup() async {
        await end(TerminationReason(cause: HangupCause.normalClearing.cause, causeCode: HangupCause.normalClearing.causeCode, localStatus: .endedByLocalUser),
                  failure: nil, notifyServer: true)
    }

    public var terminationReason: TerminationReason? {
        if case .done(let reason) = state { return reason }
        return nil
    }

    public func waitUntilDone() async -> TerminationReason {
        if let terminationReason { return terminationReason }
        return await withCheckedContinuation { doneWaiters.append($0) }
    }

    // MARK: Events

    private func handle(_ event: JanusEvent) async {
        guard !state.isDone else { return }
        switch event {
        case .remoteCandidate(let from, let candidate, _, _):
            guard from == handle else { return }
            if let candidate { await leg.addRemoteCandidate(candidate) } else { await leg.remoteEndOfCandidates() }
        case .hangup(let from, let reason):
            guard from == handle else { return }
            logger.info("Janus hung up: \(reason)")
            if !Self.remoteHangup(reason).isNormal { eventSink.yield(.error(ParleyError(kind: .janus, message: "Janus closed the call: \(reason)"))) }
            await end(Self.remoteHangup(reason), failure: nil, notifyServer: false)
        case .detached(let from):
            guard from == handle else { return }
            await end(TerminationReason(cause: "DETACHED"), failure: nil, notifyServer: false)
        case .pluginEvent(let from, let result):
            guard from == handle else { return }
            handlePluginEvent(result.data)
        case .webrtcUp(let from):
            logger.debug("Janus reports WebRTC up on handle \(from)")
        case .media(_, let type, let receiving):
            logger.debug("Janus \(receiving ? "receives" : "stopped receiving") our \(type)")
        case .slowLink(_, let uplink, let lost):
            logger.info("Janus reports a slow \(uplink ? "uplink" : "downlink"): \(lost) packets lost")
        case .keepaliveAcknowledged:
            break
        case .sessionTimeout:
            await end(TerminationReason(localStatus: .networkLost), failure: ParleyError(.janusSessionLost("the Janus session timed out")), notifyServer: false)
        case .socketClosed(let closure):
            await end(TerminationReason(localStatus: .networkLost), failure: ParleyError(.socketClosed(closure)), notifyServer: false)
        case .error(let error):
            logger.warning("Janus: \(error)")
            eventSink.yield(.error(ParleyError(error)))
        }
    }

    private func handle(_ event: MediaLegEvent) async {
        guard !state.isDone else { return }
        if let reported = event.callEvent { eventSink.yield(reported) }
        switch event {
        case .localCandidate(let line):
            for candidate in trickleGate.pass(line) { await sendCandidate(candidate) }
        case .gatheringComplete where trickle:
            for candidate in trickleGate.pass(nil) { await sendCandidate(candidate) }
        case .secured:
            if state == .dialing { setState(.active) }
        case .dtmf(let digit, _):
            eventSink.yield(.dtmf(digit))
        case .iceState, .selectedPair, .disrupted, .restored, .gatheringComplete:
            break
        case .remoteGoodbye:
            logger.debug("Janus sent RTCP BYE")
        case .failed(let error) where error.kind == .iceFailed && (state == .active || state == .reconnecting):
            logger.warning("Janus call lost its media path: \(error); restarting ICE")
            await recoverMediaPath()
        case .failed(let error):
            logger.error("Janus call media failed: \(error)")
            let cause = HangupCause.normalTemporaryFailure
            await end(TerminationReason(cause: cause.cause, causeCode: cause.causeCode, localStatus: .endedByError), failure: error, notifyServer: true)
        }
    }

    private func handlePluginEvent(_ data: JSONValue) {
        if let code = data["error_code"]?.intValue {
            eventSink.yield(.error(ParleyError(kind: .janus, message: "Janus \(destination.plugin) error \(code): \(data["error"]?.stringValue ?? "plugin error")", serverCode: code)))
            return
        }
        noteParticipants(data["participants"])
        if let leaving = data["leaving"]?.intValue { participants[leaving] = nil }
    }

    private func noteParticipants(_ list: JSONValue?) {
        for participant in list?.arrayValue ?? [] {
            guard let id = participant["id"]?.intValue else { continue }
            participants[id] = participant["display"]?.stringValue ?? ""
        }
    }

    // MARK: Trickle

    private func flushCandidates() async {
        for candidate in trickleGate.open() { await sendCandidate(candidate) }
    }

    /// One candidate, or the completed marker for nil. A lost trickle is reported, not fatal:
    /// ICE may well succeed with the candidates that did arrive.
    private func sendCandidate(_ line: String?) async {
        guard let handle, !state.isDone else { return }
        do {
            try await client.trickle(handle: handle, candidate: line)
        } catch {
            logger.warning("could not trickle a candidate to Janus: \(error)")
            eventSink.yield(.error(ParleyError(error)))
        }
    }

    // MARK: Ending

    func setState(_ new: CallState) {
        guard !state.isDone else { return }
        state = new
        eventSink.yield(.state(new))
    }

    private static func remoteHangup(_ reason: String) -> TerminationReason {
        // Janus names why it closed the PeerConnection ("Janus API", "DTLS alert", "ICE failed").
        let normal = ["janus api", "close pc", "dtls alert"].contains(reason.lowercased())
        if normal { return TerminationReason(cause: HangupCause.normalClearing.cause, causeCode: HangupCause.normalClearing.causeCode) }
        let cause = HangupCause.normalTemporaryFailure
        return TerminationReason(cause: cause.cause, causeCode: cause.causeCode)
    }

    func end(_ reason: TerminationReason, failure: ParleyError?, notifyServer: Bool) async {
        guard !state.isDone else { return }
        if let failure {
            self.failure = failure
            eventSink.yield(.error(failure))
        }
        state = .done(reason)
        monitor?.close()
        monitor = nil
        networkSettling?.cancel()
        await leg.stop()
        if notifyServer, let handle {
            try? await client.hangup(handle: handle)
            try? await client.detach(handle: handle)
        }
        try? await client.destroy()
        for pump in pumps { pump.cancel() }
        pumps = []
        eventSink.yield(.state(state))
        eventSink.finish()
        for waiter in doneWaiters { waiter.resume(returning: reason) }
        doneWaiters = []
    }

    /// Dialling failed: release what was set up; the error is thrown to the caller.
    private func abandon(_ error: ParleyError) async {
        await end(TerminationReason(localStatus: .endedByError), failure: error, notifyServer: handle != nil)
    }
}
