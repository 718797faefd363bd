import Logging

/// A Verto/Telnyx client on a real WebSocket: drives a `VertoSession` with socket events and
/// time, and turns its requests into async calls.
package actor VertoClient {
    package nonisolated let events: AsyncStream<VertoEvent>
    private let eventSink: AsyncStream<VertoEvent>.Continuation
    private let baseURL: WebSocketURL
    private let socketOptions: WebSocketOptions
    private var session: VertoSession
    private var socket: WebSocketConnection?
    private var generation = 0
    private var waiters: [JSONRPCID: CheckedContinuation<Result<JSONValue, SignalingError>, Never>] = [:]
    private var readinessWaiters: [CheckedContinuation<Result<Void, SignalingError>, Never>] = []
    private var readyWatchers: [Int: CheckedContinuation<Bool, Never>] = [:]
    private var nextWatcher = 0
    private var timerTask: Task<Void, Never>?
    private let clock = ElapsedClock()
    /// The open socket's addresses; nil while there is no open socket.
    package private(set) var socketEndpoints: SocketEndpoints?

    /// Every frame at debug, the socket's life at trace. The log output redacts secrets.
    private let logger: Logger

    package init(url: WebSocketURL, configuration: VertoConfiguration, socketOptions: WebSocketOptions = WebSocketOptions(), sessid: String? = nil,
                logger: Logger = Logger(label: "parley.signalling")) {
        self.logger = logger
        (events, eventSink) = AsyncStream.makeStream(of: VertoEvent.self)
        baseURL = url
        self.socketOptions = socketOptions
        session = VertoSession(configuration: configuration, sessid: sessid)
    }

    package var sessid: String { session.sessid }
    package var voiceSDKID: String? { session.voiceSDKID }
    package var phase: VertoSession.Phase { session.phase }

    /// The URL the next connection uses: the given one plus `?voice_sdk_id=` once the server sent one.
    package var connectURL: WebSocketURL {
        guard let id = session.voiceSDKID else { return baseURL }
        return baseURL.settingQuery("voice_sdk_id", to: id)
    }

    /// Opens the socket, logs in and waits until the session is ready for calls.
    /// Calling it again after a disconnect logs in again with the same sessid.
    package func connect() async throws(SignalingError) {
        if let socket { socket.close(code: WebSocketCloseCode.goingAway, reason: "reconnecting") }
        generation += 1
        let current = generation
        logger.trace("opening the WebSocket to \(connectURL) (attempt \(current), sessid \(session.sessid))")
        let connection = WebSocketConnection(url: connectURL, options: socketOptions)
        socket = connection
        // Unstructured: the socket's event pump lives as long as the connection, past `connect`; ends with the socket's stream.
        Task { [weak self] in
            for await event in connection.events { await self?.handle(event, generation: current) }
        }
        startTimer()
        let outcome = await withCheckedContinuation { readinessWaiters.append($0) }
        try outcome.get()
    }

    /// Waits until the session is ready for calls, at most `timeout`; false if it did not get there.
    package func waitUntilReady(within timeout: Duration) async -> Bool {
        if session.isReady { return true }
        let id = nextWatcher
        nextWatcher += 1
        // Unstructured: the wait's timeout must fire while this task is parked on a continuation; cancelled on return.
        let timer = Task { [weak self] in
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            await self?.stopWatching(id, ready: false)
        }
        let ready = await withCheckedContinuation { readyWatchers[id] = $0 }
        timer.cancel()
        return ready
    }

    private func stopWatching(_ id: Int, ready: Bool) {
        readyWatchers.removeValue(forKey: id)?.resume(returning: ready)
    }

    package func disconnect() {
        socket?.close()
        timerTask?.cancel()
        timerTask = nil
    }

    /// Gives the open socket up at once, as if it had closed: its local address is gone or it
    /// stopped answering, so nothing more will arrive on it, and TCP could take minutes to say
    /// so. Outstanding requests fail now instead of waiting out their timeouts, `.socketClosed`
    /// is reported, and whatever the old socket reports later is ignored.
    package func abandonSocket(reason: String) {
        guard let socket else { return }
        socket.close(code: WebSocketCloseCode.goingAway, reason: reason)
        generation += 1
        closed(WebSocketClosure(code: nil, reason: reason, initiatedByPeer: false, error: nil))
        flush()
    }

    /// Sends any call-level request through `body` and waits for its result.
    package func perform(_ body: (inout VertoSession, Double) throws(SignalingError) -> JSONRPCID) async throws(SignalingError) -> JSONValue {
        let id = try body(&session, now)
        let outcome = await withCheckedContinuation { continuation in
            waiters[id] = continuation
            flush()
        }
        return try outcome.get()
    }

    /// Sends a call-level request through `body` without waiting for its result: the reply,
    /// or the request's timeout, is dropped when it comes.
    package func send(_ body: (inout VertoSession, Double) throws(SignalingError) -> JSONRPCID) throws(SignalingError) {
        _ = try body(&session, now)
        flush()
    }

    package func invite(_ dial: VertoDialParameters, sdp: String) async throws(SignalingError) -> JSONValue {
        try await perform { session, now throws(SignalingError) in try session.invite(dial, sdp: sdp, now: now) }
    }

    package func answer(callID: String, sdp: String, attach: Bool = false, customHeaders: [CustomHeader] = [], trickle: Bool = false) async throws(SignalingError) -> JSONValue {
        try await perform { session, now throws(SignalingError) in
            try session.answer(callID: callID, sdp: sdp, attach: attach, customHeaders: customHeaders, trickle: trickle, now: now)
        }
    }

    package func bye(callID: String, cause: HangupCause) async throws(SignalingError) -> JSONValue {
        try await perform { session, now throws(SignalingError) in try session.bye(callID: callID, cause: cause, now: now) }
    }

    /// Returns the server's holdState ("held" or "active").
    package func modify(callID: String, action: HoldAction) async throws(SignalingError) -> String? {
        let result = try await perform { session, now throws(SignalingError) in try session.modify(callID: callID, action: action, now: now) }
        return result["holdState"]?.stringValue
    }

    /// Returns the answer SDP to an ICE-restart offer.
    package func updateMedia(callID: String, offer: String) async throws(SignalingError) -> String {
        let result = try await perform { session, now throws(SignalingError) in try session.updateMedia(callID: callID, offer: offer, now: now) }
        guard let sdp = result["sdp"]?.stringValue else { throw .unexpectedMessage("the updateMedia result carries no sdp") }
        return sdp
    }

    package func info(callID: String, dtmf: String) async throws(SignalingError) -> JSONValue {
        try await perform { session, now throws(SignalingError) in try session.info(callID: callID, dtmf: dtmf, now: now) }
    }

    package func candidate(_ candidate: VertoCandidate) async throws(SignalingError) -> JSONValue {
        try await perform { session, now throws(SignalingError) in try session.candidate(candidate, now: now) }
    }

    package func endOfCandidates(callID: String) async throws(SignalingError) -> JSONValue {
        try await perform { session, now throws(SignalingError) in try session.endOfCandidates(callID: callID, now: now) }
    }

    package func answerMediaUpdate(requestID: JSONRPCID, callID: String, answer: Result<String, JSONRPCErrorObject>) {
        session.answerMediaUpdate(requestID: requestID, callID: callID, answer: answer)
        flush()
    }

    /// A signalling-health probe: true when the server answered within `timeout`.
    package func probe(timeout: Duration) async -> Bool {
        do {
            _ = try await perform { session, now throws(SignalingError) in try session.ping(now: now, timeout: timeout) }
            return true
        } catch {
            return false
        }
    }

    /// Probes a ready socket and gives it up when the server does not answer within `timeout`;
    /// true when it was given up. A socket still connecting or logging in is left to its own
    /// timeouts, and one reopened during the probe is left alone.
    package func abandonIfSilent(timeout: Duration) async -> Bool {
        guard socket != nil, session.isReady else { return false }
        let probed = generation
        if await probe(timeout: timeout) { return false }
        guard generation == probed, socket != nil else { return false }
        abandonSocket(reason: "no answer to a ping within \(timeout)")
        return true
    }

    // MARK: Driving the session

    private var now: Double { clock.seconds }

    private func handle(_ event: WebSocketEvent, generation eventGeneration: Int) {
        guard eventGeneration == generation else { return }
        switch event {
        case .opened(_, let endpoints):
            logger.trace("WebSocket open: \(endpoints.map { "\($0)" } ?? "addresses unknown")")
            socketEndpoints = endpoints
            eventSink.yield(.socketOpened(url: connectURL.description))
            session.connected(now: now)
        case .text(let text):
            logger.debug("received \(text)")
            session.received(text, now: now)
        case .refused(let refusal):
            logger.trace("WebSocket refused a message: \(refusal)")
            eventSink.yield(.error(.malformedFrame(refusal.description)))
        case .closed(let closure):
            closed(closure)
        }
        flush()
    }

    private func closed(_ closure: WebSocketClosure) {
        logger.trace("WebSocket closed: \(closure)")
        session.disconnected(closure)
        socket = nil
        socketEndpoints = nil
        eventSink.yield(.socketClosed(closure))
        finishReadiness(.failure(closure.error.map(SignalingError.socket) ?? .socketClosed(closure)))
    }

    private func flush() {
        let output = session.takeOutput()
        for frame in output.frames {
            logger.debug("sent \(frame)")
            do {
                try socket?.send(frame)
            } catch {
                eventSink.yield(.error(.socket(error)))
            }
        }
        for event in output.events {
            eventSink.yield(event)
            switch event {
            case .ready: finishReadiness(.success(()))
            case .error(let error):
                if case .failed = session.phase { finishReadiness(.failure(error)) }
                if case .keepaliveTimedOut = error { socket?.close(code: WebSocketCloseCode.goingAway, reason: "keepalive timeout") }
            case .punted: socket?.close(code: WebSocketCloseCode.normal, reason: "punted")
            default: break
            }
        }
        for completion in output.completions {
            waiters.removeValue(forKey: completion.id)?.resume(returning: completion.result)
        }
    }

    private func finishReadiness(_ outcome: Result<Void, SignalingError>) {
        let watchers = readyWatchers
        readyWatchers.removeAll()
        let ready = session.isReady
        watchers.values.forEach { $0.resume(returning: ready) }
        let pending = readinessWaiters
        readinessWaiters.removeAll()
        pending.forEach { $0.resume(returning: outcome) }
    }

    private func startTimer() {
        guard timerTask == nil else { return }
        // Unstructured: the client's timer lives from `connect` to `close`, across the caller's scopes.
        timerTask = Task { [weak self] in
            while !Task.isCancelled {
                guard let delay = await self?.tickAndNextDelay() else { return }
                try? await Task.sleep(for: .seconds(delay))
            }
        }
    }

    /// Runs due timers; returns how long to sleep (at most a second, so new deadlines are not missed by much).
    private func tickAndNextDelay() -> Double {
        session.tick(now: now)
        flush()
        guard let deadline = session.nextDeadline else { return 1 }
        return min(1, max(0.01, deadline - now))
    }
}
