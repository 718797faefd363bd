import Foundation

/// A Janus WebSocket API client (subprotocol `janus-protocol`): one session, any number of
/// plugin handles, keepalives within the session timeout, events as a stream.
package actor JanusClient {
    package nonisolated let events: AsyncStream<JanusEvent>
    private let eventSink: AsyncStream<JanusEvent>.Continuation
    private let url: WebSocketURL
    private let options: WebSocketOptions
    private let requestTimeout: Duration
    private let keepaliveInterval: Duration
    private var socket: WebSocketConnection?
    private var openWaiter: CheckedContinuation<Result<Void, SignalingError>, Never>?
    private var pending: [String: Pending] = [:]
    private var keepaliveTask: Task<Void, Never>?
    package private(set) var sessionID: Int?

    private struct Pending {
        let continuation: CheckedContinuation<Result<JanusInbound, SignalingError>, Never>
        /// Plugin messages are acked first and answered by a later event.
        let waitsForEvent: Bool
        let timer: Task<Void, Never>
    }

    package init(url: WebSocketURL, options: WebSocketOptions = WebSocketOptions(), requestTimeout: Duration = .seconds(10), keepaliveInterval: Duration = .seconds(25)) {
        (events, eventSink) = AsyncStream.makeStream(of: JanusEvent.self)
        self.url = url
        var options = options
        options.subprotocol = "janus-protocol"
        self.options = options
        self.requestTimeout = requestTimeout
        self.keepaliveInterval = keepaliveInterval
    }

    /// Opens the socket and creates a session.
    package func connect() async throws(SignalingError) {
        let connection = WebSocketConnection(url: url, options: options)
        socket = connection
        // Unstructured: the socket's event pump lives as long as the connection, past `connect`; ends with the socket's stream.
        Task { [weak self] in
            for await event in connection.events { await self?.handle(event) }
        }
        let opened = await withCheckedContinuation { openWaiter = $0 }
        try opened.get()
        let created = try await request(["janus": "create"])
        guard case .success(_, let data, _) = created, let id = data?["id"]?.intValue else {
            throw .unexpectedMessage("Janus answered create without a session id")
        }
        sessionID = id
        startKeepalive()
    }

    /// Attaches a plugin (e.g. "janus.plugin.echotest"); returns the handle id.
    package func attach(plugin: String) async throws(SignalingError) -> Int {
        let answer = try await request(["janus": "attach", "plugin": .string(plugin)], session: true)
        guard case .success(_, let data, _) = answer, let handle = data?["id"]?.intValue else {
            throw .unexpectedMessage("Janus answered attach without a handle id")
        }
        return handle
    }

    /// Sends a plugin message (with an offer or answer when given) and returns the plugin's
    /// reply: the synchronous success, or the event that follows the ack.
    package func message(handle: Int, body: JSONValue, jsep: JSEP? = nil) async throws(SignalingError) -> JanusPluginResult {
        var frame: [String: JSONValue] = ["janus": "message", "handle_id": .integer(handle), "body": body]
        if let jsep { frame["jsep"] = jsep.json }
        let answer = try await request(.object(frame), session: true, waitsForEvent: true)
        let result: JanusPluginResult
        switch answer {
        case .success(_, _, let plugin?): result = plugin
        case .event(_, _, let plugin): result = plugin
        default: throw .unexpectedMessage("Janus answered a plugin message with neither plugin data nor an event")
        }
        if let code = result.data["error_code"]?.intValue {
            throw .janus(code: code, reason: result.data["error"]?.stringValue ?? "plugin error")
        }
        return result
    }

    /// Trickles one local candidate ("candidate:…"), or the end of candidates when nil.
    package func trickle(handle: Int, candidate: String?, sdpMid: String? = "0", sdpMLineIndex: Int = 0) async throws(SignalingError) {
        let value: JSONValue = candidate.map { ["candidate": .string($0), "sdpMid": sdpMid.map(JSONValue.string) ?? .null,
                                                "sdpMLineIndex": .integer(sdpMLineIndex)] } ?? ["completed": true]
        _ = try await request(["janus": "trickle", "handle_id": .integer(handle), "candidate": value], session: true)
    }

    package func hangup(handle: Int) async throws(SignalingError) {
        _ = try await request(["janus": "hangup", "handle_id": .integer(handle)], session: true)
    }

    package func detach(handle: Int) async throws(SignalingError) {
        _ = try await request(["janus": "detach", "handle_id": .integer(handle)], session: true)
    }

    /// Destroys the session and closes the socket.
    package func destroy() async throws(SignalingError) {
        keepaliveTask?.cancel()
        defer {
            socket?.close()
            sessionID = nil
        }
        _ = try await request(["janus": "destroy"], session: true)
    }

    // MARK: Transactions

    private func request(_ frame: JSONValue, session: Bool = false, waitsForEvent: Bool = false) async throws(SignalingError) -> JanusInbound {
        guard let socket else { throw .notReady("the Janus socket is not connected") }
        guard case .object(var members) = frame else { throw .invalidConfiguration("a Janus request must be an object") }
        if session {
            guard let sessionID else { throw .janusSessionLost("no session; connect first") }
            members["session_id"] = .integer(sessionID)
        }
        let transaction = Self.makeTransaction()
        members["transaction"] = .string(transaction)
        let method = members["janus"]?.stringValue ?? "request"
        do {
            try socket.send(JSONValue.object(members).serialized)
        } catch {
            throw .socket(error)
        }
        let outcome = await withCheckedContinuation { continuation in
            let timeout = requestTimeout
            // Unstructured: a request timeout that must fire while the request waits on a continuation; cancelled when the reply comes.
            let timer = Task { [weak self] in
                try? await Task.sleep(for: timeout)
                await self?.expire(transaction, method: "Janus \(method)")
            }
            pending[transaction] = Pending(continuation: continuation, waitsForEvent: waitsForEvent, timer: timer)
        }
        return try outcome.get()
    }

    private func expire(_ transaction: String, method: String) {
        guard let entry = pending.removeValue(forKey: transaction) else { return }
        entry.continuation.resume(returning: .failure(.requestTimedOut(method: method, after: requestTimeout)))
    }

    private func finish(_ transaction: String, _ outcome: Result<JanusInbound, SignalingError>) {
        guard let entry = pending.removeValue(forKey: transaction) else { return }
        entry.timer.cancel()
        entry.continuation.resume(returning: outcome)
    }

    private static func makeTransaction() -> String {
        String((0..<12).map { _ in "abcdefghijklmnopqrstuvwxyz0123456789".randomElement()! })
    }

    // MARK: Socket

    private func handle(_ event: WebSocketEvent) {
        switch event {
        case .opened:
            openWaiter?.resume(returning: .success(()))
            openWaiter = nil
        case .text(let text):
            receive(text)
        case .refused(let refusal):
            eventSink.yield(.error(.malformedFrame(refusal.description)))
        case .closed(let closure):
            let error = closure.error.map(SignalingError.socket) ?? .socketClosed(closure)
            openWaiter?.resume(returning: .failure(error))
            openWaiter = nil
            for transaction in Array(pending.keys) { finish(transaction, .failure(.janusSessionLost(closure.description))) }
            keepaliveTask?.cancel()
            socket = nil
            eventSink.yield(.socketClosed(closure))
        }
    }

    private func receive(_ text: String) {
        let inbound: JanusInbound
        do {
            inbound = try JanusInbound.parse(text)
        } catch {
            eventSink.yield(.error(error))
            return
        }
        switch inbound {
        case .ack(let transaction):
            guard let entry = pending[transaction], !entry.waitsForEvent else { return }
            finish(transaction, .success(inbound))
        case .success(let transaction, _, _):
            finish(transaction, .success(inbound))
        case .error(let transaction, let code, let reason):
            let error: SignalingError = code == 458 ? .janusSessionLost(reason) : .janus(code: code, reason: reason)
            if let transaction, pending[transaction] != nil {
                finish(transaction, .failure(error))
            } else {
                eventSink.yield(.error(error))
            }
        case .event(let transaction, let handle, let result):
            if let transaction, pending[transaction] != nil {
                finish(transaction, .success(inbound))
            } else {
                eventSink.yield(.pluginEvent(handle: handle, result))
            }
        case .notice(let event):
            if event == .sessionTimeout { sessionID = nil }
            eventSink.yield(event)
        }
    }

    private func startKeepalive() {
        keepaliveTask?.cancel()
        let interval = keepaliveInterval
        // Unstructured: keepalives for the session's life, past `connect`; `close` cancels it.
        keepaliveTask = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled, let self else { return }
                await self.sendKeepalive()
            }
        }
    }

    private func sendKeepalive() async {
        do {
            _ = try await request(["janus": "keepalive"], session: true)
            eventSink.yield(.keepaliveAcknowledged)
        } catch {
            eventSink.yield(.error(error))
        }
    }
}
