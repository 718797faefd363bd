import Foundation
import Locking

/// The client side of the Verto/Telnyx dialect as a state machine without I/O.
///
/// The owner feeds it socket events, received text and the time, and takes out the frames to
/// send, the events to report and the outcomes of requests. Keeping time an input makes the
/// dialect replayable from recorded transcripts with no clock and no sleeps.
package struct VertoSession: Sendable {
    package enum Phase: Sendable, Equatable {
        case disconnected
        case loggingIn
        case awaitingClientReady
        case checkingGateway
        case ready
        case failed(SignalingError)
    }

    enum RequestKind: Sendable {
        case login, gatewayState, keepalive, call
    }

    package let configuration: VertoConfiguration
    package private(set) var phase: Phase = .disconnected
    /// Made by the client and kept across reconnects, so the server can re-attach calls.
    package private(set) var sessid: String
    /// The server's sticky-routing id, put on the reconnect URL as `?voice_sdk_id=`.
    package private(set) var voiceSDKID: String?
    private(set) var lastGatewayState: String?

    private let makeID: @Sendable () -> String
    private var pending = PendingRequests<RequestKind>()
    private var frames: [String] = []
    private var events: [VertoEvent] = []
    private var completions: [VertoCompletion] = []
    private var lastReceived: Double = 0
    private var lastSent: Double = 0
    /// Our pings the server has not answered yet (keepalives and answers to its pings).
    private var keepalivesInFlight = 0
    /// A login on an earlier socket succeeded: the next one is a reconnection (as the JS SDK
    /// says it, docs/verto-protocol.md §10.4).
    private var loggedInBefore = false
    private var gatewayRequests = 0
    private var gatewayRetryAt: Double?

    package init(configuration: VertoConfiguration, sessid: String? = nil,
                makeID: @escaping @Sendable () -> String = RandomIdentifier.uuid) {
        self.configuration = configuration
        self.makeID = makeID
        self.sessid = sessid ?? makeID()
    }

    // MARK: Inputs

    /// The socket opened: log in at once (docs/verto-protocol.md §2.1).
    package mutating func connected(now: Double) {
        phase = .loggingIn
        lastReceived = now
        lastSent = now
        keepalivesInFlight = 0
        gatewayRequests = 0
        gatewayRetryAt = nil
        var params: [String: JSONValue] = [
            "sessid": .string(sessid),
            "User-Agent": .string(configuration.userAgent),
            "loginParams": configuration.loginParams,
            "userVariables": configuration.userVariables,
        ]
        if loggedInBefore { params["reconnection"] = true }
        switch configuration.credentials {
        case .password(let login, let password):
            params["login"] = .string(login)
            params["passwd"] = .string(password)
        case .token(let token):
            params["login_token"] = .string(token)
        }
        sendRequest("login", params: .object(params), kind: .login, now: now)
    }

    /// The socket closed: every outstanding request fails with the closure.
    package mutating func disconnected(_ closure: WebSocketClosure) {
        let error = SignalingError.socketClosed(closure)
        for (id, entry) in pending.removeAll() where entry.context == .call {
            completions.append(VertoCompletion(id: id, method: entry.method, result: .failure(error)))
        }
        phase = .disconnected
        keepalivesInFlight = 0
        gatewayRetryAt = nil
    }

    package mutating func received(_ text: String, now: Double) {
        lastReceived = now
        let message: JSONRPCMessage
        do {
            message = try JSONRPCMessage.parse(text)
        } catch {
            events.append(.error(.malformedFrame(error.reason)))
            return
        }
        if let id = message.frame["voice_sdk_id"]?.stringValue, !id.isEmpty { voiceSDKID = id }
        switch message {
        case .response(let id, let outcome, _):
            handleResponse(id: id, outcome: outcome, now: now)
        case .request(let id, let method, let params, _):
            handleServerMessage(id: id, method: method, params: params, now: now)
        case .notification(let method, let params, _):
            handleServerMessage(id: nil, method: method, params: params, now: now)
        case .errorWithoutID(let error, _):
            // The server could not read something we sent; no request of ours is answered by it.
            events.append(.error(.serverError(code: error.code, message: error.message, method: nil)))
        }
    }

    /// Fires whatever is due: request timeouts, gateway retries, our keepalive ping.
    package mutating func tick(now: Double) {
        for (id, entry) in pending.expire(now: now) {
            expire(id: id, entry: entry)
        }
        if phase == .checkingGateway, let retryAt = gatewayRetryAt, now >= retryAt {
            if gatewayRequests <= configuration.gatewayRetries {
                requestGatewayState(now: now)
            } else {
                fail(.gatewayNotRegistered(lastState: lastGatewayState))
            }
        }
        if isConnected, keepalivesInFlight == 0, let due = keepaliveDue, now >= due {
            sendKeepalive(now: now)
        }
    }

    /// When `tick` next has something to do.
    package var nextDeadline: Double? {
        var deadlines = [pending.nextDeadline, phase == .checkingGateway ? gatewayRetryAt : nil]
        if isConnected, keepalivesInFlight == 0 { deadlines.append(keepaliveDue) }
        return deadlines.compactMap { $0 }.min()
    }

    /// We ping after `keepaliveIdle` without a frame from the server (the JS SDK's 35 s), and
    /// after `sendIdle` without one of ours, so the server's idle timeout on our direction (60 s
    /// in the SDKs' notes) never fires whatever the server sends (docs/verto-protocol.md §4).
    private var keepaliveDue: Double? {
        min(lastReceived + configuration.keepaliveIdle.inSeconds, lastSent + configuration.sendIdle.inSeconds)
    }

    private mutating func sendKeepalive(now: Double) {
        keepalivesInFlight += 1
        sendRequest(method("ping"), params: .object([:]), kind: .keepalive, now: now, timeout: configuration.keepaliveTimeout)
    }

    /// Frames to send, events to report and finished requests since the last call.
    package mutating func takeOutput() -> (frames: [String], events: [VertoEvent], completions: [VertoCompletion]) {
        defer {
            frames.removeAll()
            events.removeAll()
            completions.removeAll()
        }
        return (frames, events, completions)
    }

    /// Answers a server `updateMedia` request with our answer SDP, or refuses it.
    package mutating func answerMediaUpdate(requestID: JSONRPCID, callID: String, answer: Result<String, JSONRPCErrorObject>) {
        switch answer {
        case .success(let sdp): reply(requestID, result: ["action": "updateMedia", "callID": .string(callID), "sdp": .string(sdp)])
        case .failure(let error): reply(requestID, error: error)
        }
    }

    // MARK: Requests we make

    var isReady: Bool { phase == .ready }

    private var isConnected: Bool {
        switch phase {
        case .disconnected, .failed: false
        default: true
        }
    }

    /// Sends a call-level request; its outcome comes back as a `VertoCompletion`.
    @discardableResult
    package mutating func request(_ name: String, params: JSONValue, now: Double) throws(SignalingError) -> JSONRPCID {
        // The server re-offers detached calls right after the login, before clientReady: the
        // answers to those (attach, or a bye for a call we dropped) may not wait for registration.
        let allowedBeforeReady = ["attach", "bye"].contains(name) && [.awaitingClientReady, .checkingGateway].contains(phase)
        guard phase == .ready || allowedBeforeReady else { throw .notReady("\(method(name)) needs a logged-in, registered session") }
        return sendRequest(method(name), params: params, kind: .call, now: now)
    }

    /// A probe ping whose answer proves the signalling path is alive (used by reconnection).
    @discardableResult
    package mutating func ping(now: Double, timeout: Duration) throws(SignalingError) -> JSONRPCID {
        guard isConnected else { throw .notReady("the socket is not connected") }
        return sendRequest(method("ping"), params: .object([:]), kind: .call, now: now, timeout: timeout)
    }

    /// `verto.*` for FreeSWITCH, `telnyx_rtc.*` for Telnyx; `login` has no prefix in either.
    package func method(_ name: String) -> String { "\(configuration.methodPrefix).\(name)" }

    @discardableResult
    private mutating func sendRequest(_ method: String, params: JSONValue, kind: RequestKind, now: Double, timeout: Duration? = nil) -> JSONRPCID {
        let id = JSONRPCID.string(makeID())
        // Like the JS SDK, the session's own gatewayState and ping requests carry the sticky-routing id.
        let carriesVoiceSDKID = kind == .gatewayState || kind == .keepalive || method == self.method("ping")
        var extras: [String: JSONValue] = [:]
        if carriesVoiceSDKID, let voiceSDKID { extras["voice_sdk_id"] = .string(voiceSDKID) }
        frames.append(JSONRPCMessage.requestFrame(id: id, method: method, params: params, extras: extras).serialized)
        lastSent = now
        pending.add(id, method: method, now: now, timeout: timeout ?? configuration.requestTimeout, context: kind)
        return id
    }

    private mutating func requestGatewayState(now: Double) {
        gatewayRequests += 1
        gatewayRetryAt = now + configuration.gatewayRetryInterval.inSeconds
        sendRequest(method("gatewayState"), params: .object([:]), kind: .gatewayState, now: now)
    }

    private mutating func fail(_ error: SignalingError) {
        phase = .failed(error)
        gatewayRetryAt = nil
        events.append(.error(error))
    }

    // MARK: Responses

    private mutating func handleResponse(id: JSONRPCID, outcome: Result<JSONValue, JSONRPCErrorObject>, now: Double) {
        guard let entry = pending.complete(id) else {
            events.append(.error(.unexpectedMessage("a response to request \(id), which is not outstanding")))
            return
        }
        switch entry.context {
        case .login:
            switch outcome {
            case .success(let result):
                if let serverSessid = result["sessid"]?.stringValue, !serverSessid.isEmpty { sessid = serverSessid }
                loggedInBefore = true
                events.append(.loggedIn(sessid: sessid))
                if configuration.readiness == .loggedIn {
                    phase = .ready
                    events.append(.ready)
                } else if phase == .loggingIn {
                    phase = .awaitingClientReady
                }
            case .failure(let error):
                fail(SignalingError.fromServer(error, method: "login"))
            }
        case .gatewayState:
            if case .success(let result) = outcome {
                handleGatewayState(result["params"]?["state"]?.stringValue ?? result["state"]?.stringValue)
            }
        // An error answer still retries on the timer, like no answer at all.
        case .keepalive:
            keepalivesInFlight = max(0, keepalivesInFlight - 1)
        case .call:
            let result = outcome.mapError { SignalingError.fromServer($0, method: entry.method) }
            completions.append(VertoCompletion(id: id, method: entry.method, result: result))
        }
    }

    private mutating func expire(id: JSONRPCID, entry: PendingRequests<RequestKind>.Entry) {
        switch entry.context {
        case .login:
            fail(.requestTimedOut(method: "login", after: configuration.requestTimeout))
        case .gatewayState:
            break  // the gateway retry timer decides
        case .keepalive:
            // The socket is presumed dead: stop pinging until the owner reconnects.
            keepalivesInFlight = 0
            fail(.keepaliveTimedOut(after: configuration.keepaliveTimeout))
        case .call:
            completions.append(VertoCompletion(id: id, method: entry.method, result: .failure(.requestTimedOut(method: entry.method, after: entry.timeout))))
        }
    }

    private mutating func handleGatewayState(_ state: String?) {
        guard let state else {
            events.append(.error(.unexpectedMessage("a gatewayState without a state")))
            return
        }
        lastGatewayState = state
        events.append(.gatewayState(state))
        guard phase == .checkingGateway || phase == .awaitingClientReady else { return }
        switch GatewayState(rawValue: state) {
        case .reged, .register:
            // REGISTER is ready too, as the JS SDK takes it (docs/verto-protocol.md §3.3).
            phase = .ready
            gatewayRetryAt = nil
            events.append(.ready)
        case .failed:
            fail(.gatewayFailed(message: "Gateway registration has failed (\(state))"))
        case .expired:
            fail(.gatewayTimeout(message: "Gateway registration has timed out (\(state))"))
        default:
            break  // NOREG, UNREGED, TRYING…: asked again on the retry timer, bounded
        }
    }

    // MARK: Server requests

    private mutating func handleServerMessage(id: JSONRPCID?, method fullMethod: String, params: JSONValue, now: Double) {
        let name = VertoInbound.baseName(fullMethod)
        switch name {
        case "ping":
            // Answered with a ping of our own, as the JS SDK does: its answer proves the path
            // both ways, and our direction is never idle (docs/verto-protocol.md §4).
            sendKeepalive(now: now)
            return
        case "clientReady":
            let reattached = params["reattached_sessions"]?.arrayValue?.compactMap(\.stringValue) ?? []
            events.append(.clientReady(reattachedSessions: reattached))
            if configuration.readiness == .gatewayRegistered, phase == .awaitingClientReady || phase == .loggingIn {
                phase = .checkingGateway
                requestGatewayState(now: now)
            }
        case "gatewayState":
            handleGatewayState(params["state"]?.stringValue)
        case "punt":
            events.append(.punted)
        case "modify" where params["action"]?.stringValue == "updateMedia":
            guard let id, let callID = VertoInbound.callIDIfPresent(params), let offer = params["sdp"]?.stringValue, !offer.isEmpty else {
                events.append(.error(.unexpectedMessage("\(fullMethod) updateMedia without an id, callID or sdp")))
                if let id { reply(id, error: JSONRPCErrorObject(code: -32602, message: "updateMedia needs callID and sdp")) }
                return
            }
            events.append(.mediaUpdateRequest(requestID: id, callID: callID, offer: offer, reattach: params["reattach"]?.boolValue == true))
            return  // answered later, with the SDP, by answerMediaUpdate
        default:
            do {
                events.append(try VertoInbound.event(for: name, params: params))
            } catch {
                events.append(.error(.unexpectedMessage("\(fullMethod): \(error.message)")))
                if let id { reply(id, error: JSONRPCErrorObject(code: error.code, message: error.message)) }
                return
            }
        }
        if let id, configuration.acknowledgeServerRequests { reply(id, result: ["method": .string(fullMethod)]) }
    }

    /// A reply answers a frame just received (or one received earlier): counted as sent at that
    /// frame's time, which can only bring our next keepalive forward.
    private mutating func reply(_ id: JSONRPCID, result: JSONValue) {
        frames.append(JSONRPCMessage.resultFrame(id: id, result: result).serialized)
        lastSent = max(lastSent, lastReceived)
    }

    private mutating func reply(_ id: JSONRPCID, error: JSONRPCErrorObject) {
        frames.append(JSONRPCMessage.errorFrame(id: id, error: error).serialized)
        lastSent = max(lastSent, lastReceived)
    }
}
