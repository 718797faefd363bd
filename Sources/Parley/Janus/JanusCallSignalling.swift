import Logging
import Signaling

/// The Janus dialect of `CallSignalling`: one session and one plugin handle (EchoTest or
/// AudioBridge) per call. Our offer goes in the plugin message that starts media and Janus'
/// answer comes back in its reply; candidates go as trickle requests, Janus' arrive as events.
/// Janus cannot hold a call, offer us one, or re-attach one: those are `call-state` errors.
actor JanusCallSignalling: CallSignalling {
    let destination: JanusDestination
    private let display: String
    private let client: JanusClient
    private let logger: Logger
    private var handle: Int?
    private weak var call: Call?
    private var pump: Task<Void, Never>?

    init(url: WebSocketURL, destination: JanusDestination, display: String, logger: Logger) {
        self.destination = destination
        self.display = display
        self.logger = logger
        client = JanusClient(url: url)
    }

    /// The call Janus' events go to.
    func bind(to call: Call) {
        self.call = call
    }

    func open(callID: String) async throws(ParleyError) {
        do {
            try await client.connect()
        } catch {
            throw ParleyError(error)
        }
        let events = client.events
        // Unstructured: the event pump lives as long as the signalling, past `start`; `stop` cancels it.
        pump = Task { [weak self] in
            for await event in events { await self?.deliver(event) }
        }
        let handle: Int
        do {
            handle = try await client.attach(plugin: destination.plugin)
        } catch {
            throw ParleyError(error)
        }
        self.handle = handle
        guard case .audioBridge(let room) = destination else { return }
        try await JanusAudioBridge.ensureRoom(room, client: client, handle: handle, logger: logger)
        let joined: JanusPluginResult
        do {
            joined = try await client.message(handle: handle, body: ["request": "join", "room": .integer(room), "display": .string(display)])
        } catch {
            throw ParleyError(error)
        }
        await call?.handle(.participants(joined: Self.participants(joined.data["participants"]), left: nil))
    }

    func invite(callID: String, destination: String, options: DialOptions, sdp: String, trickle: Bool) async throws(ParleyError) -> String? {
        let body: JSONValue = switch self.destination {
        case .echoTest: ["audio": true, "video": false]
        case .audioBridge: ["request": "configure", "muted": false]
        }
        return try await exchange(offer: sdp, body: body)
    }

    func updateMedia(callID: String, offer: String) async throws(ParleyError) -> String {
        let body: JSONValue = switch destination {
        case .echoTest: ["audio": true, "video": false]
        case .audioBridge: ["request": "configure"]
        }
        return try await exchange(offer: offer, body: body)
    }

    func answer(callID: String, sdp: String, trickle: Bool) async throws(ParleyError) {
        throw ParleyError(kind: .callState, message: "Janus does not offer calls to us: there is nothing to answer")
    }

    func ringing(callID: String) async {}

    func hangup(callID: String, cause: HangupCause) async {
        guard let handle else { return }
        try? await client.hangup(handle: handle)
        try? await client.detach(handle: handle)
    }

    func hold(callID: String, _ held: Bool) async throws(ParleyError) {
        throw ParleyError(kind: .callState, message: "hold is not available on Janus \(destination) calls")
    }

    func transfer(callID: String, destination: String) async throws(ParleyError) {
        throw ParleyError(kind: .callState, message: "transfer is not available on Janus \(destination) calls: Janus has no call to move")
    }

    func sendDTMF(callID: String, digits: String) async throws(ParleyError) {
        throw ParleyError(kind: .negotiation, message: "cannot send DTMF: Janus did not accept telephone-event")
    }

    /// One candidate. A lost trickle is reported, not fatal: ICE may well succeed with the
    /// candidates that did arrive.
    func candidate(callID: String, line: String) async {
        await trickle(line)
    }

    func endOfCandidates(callID: String) async {
        await trickle(nil)
    }

    func reattach(callID: String, sdp: String) async throws(ParleyError) {
        throw ParleyError(kind: .callState, message: "Janus has no re-attach: a lost Janus session ends its call")
    }

    func waitUntilReady(within timeout: Duration) async -> Bool { true }

    func close() async {
        try? await client.destroy()
        pump?.cancel()
        pump = nil
    }

    // MARK: Inside

    /// Sends our offer with `body` on the handle and returns Janus' answer SDP.
    private func exchange(offer: String, body: JSONValue) async throws(ParleyError) -> String {
        guard let handle else { throw ParleyError(kind: .callState, message: "the Janus call has no plugin handle") }
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

    private func trickle(_ line: String?) async {
        guard let handle else { return }
        do {
            try await client.trickle(handle: handle, candidate: line)
        } catch {
            logger.warning("could not trickle a candidate to Janus: \(error)")
            await call?.handle(.error(ParleyError(error)))
        }
    }

    private func deliver(_ event: JanusEvent) async {
        guard let call, let reported = translate(event) else { return }
        for event in reported { await call.handle(event) }
    }

    /// Janus' event in the call's words; nil for the ones that concern another handle or only the log.
    private func translate(_ event: JanusEvent) -> [CallSignallingEvent]? {
        switch event {
        case .remoteCandidate(let from, let candidate, _, _):
            guard from == handle else { return nil }
            return [candidate.map { .remoteCandidate($0) } ?? .remoteEndOfCandidates]
        case .hangup(let from, let reason):
            guard from == handle else { return nil }
            logger.info("Janus hung up: \(reason)")
            let ending = Self.remoteHangup(reason)
            if ending.isNormal { return [.remoteHangup(ending)] }
            return [.error(ParleyError(kind: .janus, message: "Janus closed the call: \(reason)")), .remoteHangup(ending)]
        case .detached(let from):
            guard from == handle else { return nil }
            return [.remoteHangup(TerminationReason(cause: "DETACHED"))]
        case .pluginEvent(let from, let result):
            guard from == handle else { return nil }
            return pluginEvent(result.data)
        case .webrtcUp(let from):
            logger.debug("Janus reports WebRTC up on handle \(from)")
        case .media(_, let type, let receiving):
            logger.debug("Janus \(receiving ? "receives" : "stopped receiving") our \(type)")
        case .slowLink(_, let uplink, let lost):
            logger.info("Janus reports a slow \(uplink ? "uplink" : "downlink"): \(lost) packets lost")
        case .keepaliveAcknowledged:
            break
        case .sessionTimeout:
            return [.sessionLost(ParleyError(.janusSessionLost("the Janus session timed out")))]
        case .socketClosed(let closure):
            return [.sessionLost(ParleyError(.socketClosed(closure)))]
        case .error(let error):
            logger.warning("Janus: \(error)")
            return [.error(ParleyError(error))]
        }
        return nil
    }

    private func pluginEvent(_ data: JSONValue) -> [CallSignallingEvent] {
        if let code = data["error_code"]?.intValue {
            return [.error(ParleyError(kind: .janus, message: "Janus \(destination.plugin) error \(code): \(data["error"]?.stringValue ?? "plugin error")",
                                       serverCode: code))]
        }
        return [.participants(joined: Self.participants(data["participants"]), left: data["leaving"]?.intValue)]
    }

    private static func participants(_ list: JSONValue?) -> [Int: String] {
        var found: [Int: String] = [:]
        for participant in list?.arrayValue ?? [] {
            guard let id = participant["id"]?.intValue else { continue }
            found[id] = participant["display"]?.stringValue ?? ""
        }
        return found
    }

    private static func remoteHangup(_ reason: String) -> TerminationReason {
        // Janus names why it closed the PeerConnection ("Janus API", "DTLS alert", "ICE failed").
        let normal = ["janus api", "close pc", "dtls alert"].contains(reason.lowercased())
        let cause = normal ? HangupCause.normalClearing : .normalTemporaryFailure
        return TerminationReason(cause)
    }
}
