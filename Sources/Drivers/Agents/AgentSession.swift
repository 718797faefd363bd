import Foundation
import Media
import Signaling
import Parley

/// One call's agent program (docs/agents.md): connects the link, waits for the program's hello,
/// offers it an incoming call, streams the call through `AgentBridge`, carries out its commands,
/// and tells it how the call ended. One actor per call; nothing here runs per packet.
public actor AgentSession {
    public nonisolated let endpoint: AgentEndpoint
    /// `--agent-param` pairs, told to a platform dialect's bot with the call's headers.
    private var parameters: [AgentParameter] {
        if case .webSocket(_, _, let dialect) = endpoint { return dialect.parameters }
        return []
    }
    let bridge: AgentBridge
    private let link: any AgentLink
    /// The rate the call streamed to this program should run its audio at
    /// (`MediaOptions.audioRate`), known once `connect` returns: the program's (its hello's, or
    /// its platform's), so that Opus is coded at it and nothing resamples (docs/agents.md, "Opus
    /// at the agent's rate"). nil under `PARLEY_AGENT_RESAMPLE=1`: the call keeps its codec's
    /// rate and the bridge resamples, as agent calls ran before, for bench/agents to compare.
    public nonisolated var callAudioRate: Int? { Self.resamples ? nil : bridge.sampleRate }

    private static let resamples = ProcessInfo.processInfo.environment["PARLEY_AGENT_RESAMPLE"] == "1"
    private var call: Call?
    private var helloWaiter: CheckedContinuation<Result<Void, ParleyError>, Never>?
    private var decisionWaiter: CheckedContinuation<AgentDecision, Never>?
    private var helloDone = false
    private var linkLost: String?
    private var ended = false
    private var commandPump: Task<Void, Never>?
    /// Whoever waits for the link to close (the end of `run`), and whether it has.
    private var closeWaiters: [CheckedContinuation<Void, Never>] = []
    private var linkClosed = false
    /// The last state told to the program: `active` is news only after hold or a recovery.
    private var toldState = CallState.active
    private var closePump: Task<Void, Never>?
    /// Notes from the call's event stream (`note`), in order.
    private let notes: AsyncStream<CallEvent>.Continuation
    private let noteStream: AsyncStream<CallEvent>

    /// How long a program has to say hello, and to answer an offered call.
    public static let helloTimeout: Duration = .seconds(5)
    public static let decisionTimeout: Duration = .seconds(30)
    /// How long the end of a call waits for the link to flush `end` and close.
    public static let closeTimeout: Duration = .seconds(2)

    init(endpoint: AgentEndpoint, link: any AgentLink, bridge: AgentBridge) {
        self.endpoint = endpoint
        self.link = link
        self.bridge = bridge
        (noteStream, notes) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(256))
    }

    /// Connects to the program and waits for its hello; throws `agent` when it cannot be
    /// reached, closes, or speaks another protocol version.
    public static func connect(_ endpoint: AgentEndpoint) async throws(ParleyError) -> AgentSession {
        let session: AgentSession
        switch endpoint {
        case .webSocket(let url, let options, let dialect):
            let bridge = AgentBridge(binaryAllowed: true, wire: try dialect.makeWire(), wake: { WebSocketFeeds.wake() })
            session = AgentSession(endpoint: endpoint, link: WebSocketAgentLink(url: url, options: options, bridge: bridge), bridge: bridge)
        case .exec(let command):
            let bridge = AgentBridge(binaryAllowed: false, wake: { ExecAgentPump.shared.wake() })
            let link = try ExecAgentLink(command: command, bridge: bridge)
            session = AgentSession(endpoint: endpoint, link: link, bridge: bridge)
        }
        try await session.open()
        return session
    }

    private func open() async throws(ParleyError) {
        // Unstructured: the command pump lives as long as the session, past `open`; cancelled when the session ends.
        commandPump = Task { [bridge] in
            for await command in bridge.commands { await self.handle(command) }
        }
        // Unstructured: waits for the link to close for the session's life, past `open`; ends when the link closes.
        closePump = Task { [link] in
            let reason = await link.closed(onOpen: { await self.linkOpened() })
            await self.lost(reason)
        }
        // Unstructured: the hello timeout must fire while this task waits on a continuation; cancelled on return.
        let timeout = Task {
            try? await Task.sleep(for: Self.helloTimeout)
            self.helloTimedOut()
        }
        defer { timeout.cancel() }
        let outcome = await withCheckedContinuation { helloWaiter = $0 }
        if case .failure(let error) = outcome {
            shutDown(reason: error.message)
            throw error
        }
    }

    /// A platform's bot says no hello: the open socket is its readiness.
    private func linkOpened() {
        guard bridge.wire != nil else { return }
        helloDone = true
        resumeHello(.success(()))
    }

    private func helloTimedOut() {
        let what = bridge.wire == nil ? "sent no hello" : "did not accept the WebSocket"
        resumeHello(.failure(ParleyError(kind: .agent, message: "the agent at \(endpoint) \(what) within \(Self.helloTimeout)")))
    }

    private func resumeHello(_ result: Result<Void, ParleyError>) {
        helloWaiter?.resume(returning: result)
        helloWaiter = nil
    }

    /// Offers an incoming call to the program and waits for its answer or rejection.
    public func offer(_ incoming: IncomingCall) async -> AgentDecision {
        if let linkLost { return .failed(ParleyError(kind: .agent, message: "the agent went away: \(linkLost)")) }
        // The platforms answer the call before they open the stream: their bots never decide.
        if bridge.wire != nil { return .answer }
        bridge.send(AgentEvent.json([
            "event": "incoming", "callId": incoming.id, "from": incoming.callerNumber ?? incoming.callerName ?? "",
            "to": incoming.calleeNumber ?? "", "headers": Self.headers(incoming.headers),
        ]))
        if let linkLost { return .failed(ParleyError(kind: .agent, message: "the agent went away: \(linkLost)")) }
        // Unstructured: the decision timeout must fire while this task waits on a continuation; cancelled on return.
        let timeout = Task {
            try? await Task.sleep(for: Self.decisionTimeout)
            self.decide(.failed(ParleyError(kind: .agent, message: "the agent did not answer or reject the call within \(Self.decisionTimeout)")))
        }
        defer { timeout.cancel() }
        // Unstructured: a caller who gives up while the program thinks ends the wait; cancelled on return.
        let callEnd = Task { [call = incoming.call] in
            let reason = await call.waitUntilDone()
            self.decide(.callEnded(reason))
        }
        defer { callEnd.cancel() }
        return await withCheckedContinuation { decisionWaiter = $0 }
    }

    private func decide(_ decision: AgentDecision) {
        decisionWaiter?.resume(returning: decision)
        decisionWaiter = nil
    }

    /// A call event, passed on by whoever reads the call's events (the CLI's watcher).
    public nonisolated func note(_ event: CallEvent) { notes.yield(event) }

    /// Streams the answered or placed call through the program until it ends, then tells the
    /// program how and closes the link. Returns what was counted.
    public func run(_ call: Call, from: String, to: String, headers: [CustomHeader]) async -> AgentCounters {
        self.call = call
        if let linkLost {
            await call.end(TerminationReason(localStatus: .agentLost), failure: ParleyError(kind: .agent, message: "the agent went away: \(linkLost)"))
        } else if let taps = await call.audioTaps() {
            do {
                try bridge.attach(codecRate: taps.sampleRate)
                let codec = await call.statistics().audio?.codec ?? ""
                if let wire = bridge.wire {
                    var parameters = Self.headers(headers)
                    for parameter in self.parameters { parameters[parameter.name] = parameter.value }
                    bridge.startStreaming(start: wire.start(AgentWireCall(callId: call.id, direction: call.direction.rawValue, from: from, to: to, parameters: parameters)))
                    AgentPlatformCalls.shared.register(wire.platformCallId, call: call)
                } else {
                    bridge.startStreaming(start: AgentEvent.json([
                        "event": "start", "version": AgentProtocol.version, "callId": call.id, "direction": call.direction.rawValue,
                        "from": from, "to": to, "headers": Self.headers(headers), "codec": codec,
                        "sampleRate": bridge.sampleRate, "audio": bridge.audioEncoding.rawValue,
                    ]))
                }
                taps.sink.listen(bridge)
                let source = taps.source
                let bridge = self.bridge
                // Unstructured: plays a prompt to the bridge while the session goes on handling commands; the call's end stops it.
                Task { _ = await source.play(bridge) }
            } catch {
                bridge.send(AgentEvent.json(["event": "error", "code": "audio", "message": error.description]))
            }
        }
        // Unstructured: forwards call events while this task waits for the call to end; cancelled right after.
        let forwarder = Task { [noteStream] in
            for await event in noteStream { self.forward(event) }
        }
        let reason = await call.waitUntilDone()
        forwarder.cancel()
        ended = true
        if let wire = bridge.wire {
            AgentPlatformCalls.shared.remove(wire.platformCallId)
            if let stop = wire.stop() { bridge.send(stop) }
        } else {
            var end: [String: Any] = ["event": "end", "localStatus": reason.reportedLocalStatus.rawValue]
            if let cause = reason.cause { end["cause"] = cause }
            bridge.send(AgentEvent.json(end))
        }
        let counters = bridge.counterSnapshot()
        shutDown(reason: "the call ended")
        // A process that exits after its last call must not take the `end` event with it.
        await waitForLinkClose(within: Self.closeTimeout)
        return counters
    }

    /// Ends a session whose call never started (refused, not placed): tells the program, and
    /// waits (bounded) for the link to carry that `end`: `answer --calls 1` exits right after.
    public func abandon(cause: String) async {
        guard !ended else { return }
        ended = true
        // A platform's bot hears of a call that never started only by its socket closing.
        if bridge.wire == nil { bridge.send(AgentEvent.json(["event": "end", "cause": cause, "localStatus": "not-started"])) }
        shutDown(reason: cause)
        await waitForLinkClose(within: Self.closeTimeout)
    }

    private func waitForLinkClose(within timeout: Duration) async {
        guard !linkClosed else { return }
        // Unstructured: the close timeout must fire while this task is parked on a continuation; cancelled on return.
        let timer = Task {
            try? await Task.sleep(for: timeout)
            self.linkDidClose()
        }
        await withCheckedContinuation { closeWaiters.append($0) }
        timer.cancel()
    }

    private func linkDidClose() {
        linkClosed = true
        closeWaiters.forEach { $0.resume() }
        closeWaiters = []
    }

    private func shutDown(reason: String) {
        bridge.close()
        link.close(reason: reason)
        commandPump?.cancel()
        notes.finish()
    }

    private func forward(_ event: CallEvent) {
        if let wire = bridge.wire {
            // The platforms tell their bots of digits only.
            if case .dtmf(let digit) = event { bridge.send(wire.dtmf(digit)) }
            return
        }
        switch event {
        case .dtmf(let digit): bridge.send(AgentEvent.json(["event": "dtmf", "digit": String(digit)]))
        case .state(let state):
            guard [.held, .remotelyHeld, .doubleHeld, .active, .dropped, .reconnecting].contains(state), state != toldState else { return }
            toldState = state
            bridge.send(AgentEvent.json(["event": "state", "state": state.name]))
        case .recovered(let path): bridge.send(AgentEvent.json(["event": "state", "state": "recovered", "path": path.rawValue]))
        default: break
        }
    }

    private func handle(_ command: AgentCommand) async {
        switch command {
        case .hello:
            helloDone = true
            resumeHello(.success(()))
        case .versionRefused(let version):
            resumeHello(.failure(ParleyError(kind: .agent, message: "the agent speaks protocol version \(version); this Parley speaks \(AgentProtocol.version)")))
        case .answer: decisionOrError(.answer, event: "answer")
        case .reject(let cause): decisionOrError(.reject(cause: cause), event: "reject")
        case .hangup(let cause):
            if decisionWaiter != nil { return decide(.reject(cause: cause)) }
            guard let call else { return refuse(.notNow(event: "hangup", reason: "no call yet")) }
            await call.hangup(cause: cause.map { HangupCause(cause: $0, causeCode: Self.causeCode($0)) } ?? .normalClearing)
        case .dtmf(let digits): await perform("dtmf") { call throws(ParleyError) in try await call.sendDTMF(digits) }
        case .transfer(let destination): await perform("transfer") { call throws(ParleyError) in try await call.transfer(to: destination) }
        case .hold: await perform("hold") { call throws(ParleyError) in try await call.hold() }
        case .unhold: await perform("unhold") { call throws(ParleyError) in try await call.unhold() }
        case .speak(let text, let voice, let ticket): say(text, voice: voice, ticket: ticket)
        case .say, .media, .mark, .clear: break
        }
    }

    private func decisionOrError(_ decision: AgentDecision, event: String) {
        guard decisionWaiter != nil else { return refuse(.notNow(event: event, reason: "no incoming call is waiting for an answer")) }
        decide(decision)
    }

    private func perform(_ event: String, _ operation: (Call) async throws(ParleyError) -> Void) async {
        guard let call else { return refuse(.notNow(event: event, reason: "the call has not started")) }
        do {
            try await operation(call)
        } catch {
            bridge.send(AgentEvent.json(["event": "error", "code": error.code, "message": "\(event): \(error.message)"]))
        }
    }

    /// Synthesised off this actor (espeak-ng's own queue) and queued like the program's audio.
    private func say(_ text: String, voice: String?, ticket: Int) {
        let rate = bridge.sampleRate
        let bridge = self.bridge
        // Unstructured: espeak synthesis blocks a thread; detached so it never holds the session's actor or the cooperative pool's caller.
        Task.detached {
            do {
                let samples = try SpeechSynthesizer.shared.audio(Speech(text, voice: voice ?? Speech.defaultVoice), sampleRate: rate)
                bridge.finishSpeech(ticket: ticket, samples: samples)
            } catch {
                bridge.finishSpeech(ticket: ticket, samples: [])
                bridge.send(AgentEvent.json(["event": "error", "code": "say", "message": "\(error)"]))
            }
        }
    }

    private func refuse(_ error: AgentProtocolError) { bridge.send(AgentEvent.error(error)) }

    private func lost(_ reason: String) async {
        linkLost = reason
        linkDidClose()
        resumeHello(.failure(ParleyError(kind: .agent, message: "the agent at \(endpoint) is unreachable or closed: \(reason)")))
        decide(.failed(ParleyError(kind: .agent, message: "the agent went away: \(reason)")))
        guard let call, !ended else { return }
        // A platform's bot ends its call by closing the socket (docs/agents.md, "Platform dialects").
        if bridge.wire != nil { return await call.hangup(cause: .normalClearing) }
        await call.end(TerminationReason(localStatus: .agentLost), failure: ParleyError(kind: .agent, message: "the agent went away: \(reason)"))
    }

    private static func headers(_ headers: [CustomHeader]) -> [String: String] {
        Dictionary(headers.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// Q.850 codes of the causes a program most often names; others go without a code.
    private static func causeCode(_ cause: String) -> Int? {
        ["NORMAL_CLEARING": 16, "USER_BUSY": 17, "NO_ANSWER": 19, "CALL_REJECTED": 21, "NORMAL_TEMPORARY_FAILURE": 41][cause]
    }
}
