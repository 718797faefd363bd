import Foundation
import ICE
import Locking

final class Peer: Sendable {
    private struct State {
        var agent: ICEAgent?
        var monitor: NetworkMonitor?
        var remoteUfrag: String?
        var restartedLocally = false
        var clockStart = ContinuousClock.now
    }

    private let state = Lock(State())

    private func elapsedMilliseconds() -> Int {
        let elapsed = ContinuousClock.now - state.withLock { $0.clockStart }
        return Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
    }

    private func emit(_ fields: [String: any Sendable]) {
        var fields = fields
        fields["ms"] = elapsedMilliseconds()
        Output.emit(fields)
    }

    func handle(_ line: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let op = object["op"] as? String else {
            emit(["event": "error", "message": "not a JSON command"])
            return
        }
        do {
            try perform(op, object)
        } catch {
            emit(["event": "error", "op": op, "message": "\(error)"])
        }
    }

    private func perform(_ op: String, _ command: [String: Any]) throws {
        switch op {
        case "create":
            let agent = try ICEAgent(configuration: try configuration(from: command))
            state.withLock { $0.agent = agent }
            agent.setReceiveHandler { bytes, component in
                Output.emit(["event": "received", "text": String(decoding: bytes, as: UTF8.self), "component": component])
            }
            // Unstructured: the test peer's event pump lives until the agent closes; the process ends with stdin.
            Task { [weak self] in
                for await event in agent.events { self?.report(event) }
                self?.emit(["event": "closed"])
            }
            emitCredentials(agent)
        case "gather":
            let agent = try current()
            state.withLock { $0.clockStart = .now }
            // Unstructured: gathers while the peer goes on reading commands from stdin.
            Task { [weak self] in
                do {
                    try await agent.startGathering()
                } catch {
                    self?.emit(["event": "error", "op": "gather", "message": "\(error)"])
                }
            }
        case "remoteCredentials":
            let agent = try current()
            let ufrag = command["ufrag"] as? String ?? ""
            let password = command["password"] as? String ?? ""
            let mustRestart = state.withLock { state -> Bool in
                defer {
                    state.remoteUfrag = ufrag
                    state.restartedLocally = false
                }
                return state.remoteUfrag != nil && state.remoteUfrag != ufrag && !state.restartedLocally
            }
            if mustRestart { try restart(agent) }
            agent.setRemoteCredentials(ufrag: ufrag, password: password)
        case "remoteCandidate":
            try current().addRemoteCandidate(command["line"] as? String ?? "")
        case "endOfCandidates":
            try current().remoteEndOfCandidates()
        case "restart":
            let agent = try current()
            state.withLock { $0.restartedLocally = true }
            try restart(agent)
        case "send":
            let text = command["text"] as? String ?? ""
            let sent = Array(text.utf8).withUnsafeBytes { try? current().send($0, component: command["component"] as? Int ?? 1) }
            emit(["event": "sent", "ok": sent == true])
        case "stream":
            // Media-like traffic: `count` packets, one every `intervalMs`, reported once at the end.
            let agent = try current()
            let count = min(command["count"] as? Int ?? 50, 100_000)
            let interval = max(command["intervalMs"] as? Int ?? 20, 1)
            let component = command["component"] as? Int ?? 1
            // Unstructured: streams packets while the peer goes on reading commands from stdin.
            Task { [weak self] in
                var sent = 0
                let payload = Array("stream packet".utf8)
                for _ in 0..<count {
                    if payload.withUnsafeBytes({ agent.send($0, component: component) }) { sent += 1 }
                    try? await Task.sleep(for: .milliseconds(interval))
                }
                self?.emit(["event": "streamed", "sent": sent, "count": count])
            }
        case "monitor":
            let monitor = try NetworkMonitor()
            state.withLock { $0.monitor = monitor }
            // Unstructured: reports network changes for the process's life while it reads commands.
            Task { [weak self] in
                for await event in monitor.events { self?.emit(["event": "network", "change": event.description]) }
            }
            emit(["event": "monitoring"])
        default:
            emit(["event": "error", "message": "unknown op \(op)"])
        }
    }

    private func restart(_ agent: ICEAgent) throws {
        state.withLock { $0.clockStart = .now }
        try agent.restart()
        emitCredentials(agent)
    }

    private func emitCredentials(_ agent: ICEAgent) {
        let credentials = agent.localCredentials
        emit(["event": "credentials", "ufrag": credentials.ufrag, "password": credentials.password])
    }

    private func current() throws -> ICEAgent {
        guard let agent = state.withLock({ $0.agent }) else { throw PeerError.noAgent }
        return agent
    }

    private func report(_ event: ICEEvent) {
        switch event {
        case .localCandidate(let line): emit(["event": "candidate", "line": line])
        case .gatheringComplete: emit(["event": "gatheringComplete"])
        case .state(let state): emit(["event": "state", "state": state.rawValue])
        case .selectedPair(let pair):
            emit([
                "event": "selectedPair", "localType": pair.localType.rawValue, "localAddress": pair.localAddress,
                "remoteType": pair.remoteType.rawValue, "remoteAddress": pair.remoteAddress,
                "transport": pair.transport.rawValue, "component": pair.component, "description": pair.description,
            ])
        case .warning(let error): emit(["event": "warning", "code": error.code, "message": "\(error)"])
        case .failed(let error): emit(["event": "failed", "code": error.code, "message": "\(error)"])
        }
    }

    private func configuration(from command: [String: Any]) throws -> ICEAgentConfiguration {
        var servers: [ICEServer] = []
        for entry in command["servers"] as? [[String: Any]] ?? [] {
            servers.append(try ICEServer(url: entry["url"] as? String ?? "", username: entry["username"] as? String, credential: entry["credential"] as? String))
        }
        var mode = ICEAgentConfiguration.Mode.trickle
        if command["mode"] as? String == "vanilla" {
            mode = .vanilla(collectionTimeout: .milliseconds(command["collectionTimeoutMs"] as? Int ?? 5000))
        }
        return ICEAgentConfiguration(
            role: command["role"] as? String == "controlled" ? .controlled : .controlling,
            servers: servers,
            mode: mode,
            relayOnly: command["relayOnly"] as? Bool ?? false,
            allowedInterfaces: command["interfaces"] as? [String] ?? [],
            ipv6: command["ipv6"] as? Bool ?? false,
            componentCount: command["components"] as? Int ?? 1,
            tlsCertificateAuthorityFile: command["caFile"] as? String,
            // 0: never report disconnected.
            disconnectTimeout: (command["disconnectTimeoutMs"] as? Int).map { $0 > 0 ? .milliseconds($0) : nil }
                ?? ICEAgentConfiguration.defaultDisconnectTimeout,
            consentTimeout: (command["consentTimeoutMs"] as? Int).map { .milliseconds($0) } ?? ICEAgentConfiguration.defaultConsentTimeout)
    }

    func close() {
        state.withLock { $0.agent }?.close()
        state.withLock { $0.monitor }?.close()
    }
}

enum PeerError: Error, CustomStringConvertible {
    case noAgent
    var description: String { "no agent: send create first" }
}
