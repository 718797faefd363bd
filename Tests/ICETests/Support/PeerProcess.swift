import Foundation

struct PeerEvent: Sendable, CustomStringConvertible {
    let name: String
    let fields: [String: String]
    /// Milliseconds since the helper last started gathering (or restarted).
    let milliseconds: Int
    /// When the test process read it: for timing things the test itself does (cutting a path).
    let receivedAt: ContinuousClock.Instant

    subscript(_ key: String) -> String? { fields[key] }
    var description: String { "\(name) \(fields.filter { $0.key != "password" })" }
}

/// The ICEPeer helper running in one namespace, driven over JSON lines. With `signal(to:)` its
/// credentials, candidates and end-of-candidates go to the other peer as they appear: trickle
/// signalling with no server in between.
final class PeerProcess: @unchecked Sendable {
    let name: String
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let condition = NSCondition()
    private var events: [PeerEvent] = []
    private var exited = false
    private var partner: PeerProcess?
    private var rewrite: (@Sendable (String) -> String?)?

    init(_ name: String, in topology: Topology, host: String) throws {
        self.name = name
        // A helper that dies must fail the test, not kill the test process on the next write.
        Glibc.signal(SIGPIPE, SIG_IGN)
        let helper = Shell.productsDirectory.appendingPathComponent("ICEPeer").path
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ip", "netns", "exec", topology.namespace(host), helper]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let thread = Thread { [weak self, output] in
            var pending = Data()
            while true {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: 0x0A) {
                    let line = pending[pending.startIndex..<newline]
                    pending = Data(pending[(newline + 1)...])
                    self?.received(line)
                }
            }
            self?.condition.withLock {
                self?.exited = true
                self?.condition.broadcast()
            }
        }
        thread.start()
        _ = try waitFor("ready", after: 0, timeout: .seconds(10))
    }

    /// `rewriting` changes or (returning nil) withholds each candidate line on its way.
    func signal(to other: PeerProcess, rewriting: (@Sendable (String) -> String?)? = nil) {
        condition.withLock {
            partner = other
            rewrite = rewriting
        }
    }

    private func received(_ line: Data) {
        guard let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any], let name = object["event"] as? String else { return }
        var fields: [String: String] = [:]
        for (key, value) in object where key != "event" { fields[key] = "\(value)" }
        let event = PeerEvent(name: name, fields: fields, milliseconds: object["ms"] as? Int ?? 0, receivedAt: .now)
        let (partner, rewrite) = condition.withLock { () -> (PeerProcess?, (@Sendable (String) -> String?)?) in
            events.append(event)
            condition.broadcast()
            return (self.partner, self.rewrite)
        }
        guard let partner else { return }
        switch name {
        case "credentials": partner.send(["op": "remoteCredentials", "ufrag": fields["ufrag"] ?? "", "password": fields["password"] ?? ""])
        case "candidate":
            let line = fields["line"] ?? ""
            let forwarded = if let rewrite { rewrite(line) } else { Optional(line) }
            if let forwarded { partner.send(["op": "remoteCandidate", "line": forwarded]) }
        case "gatheringComplete": partner.send(["op": "endOfCandidates"])
        default: break
        }
    }

    func send(_ command: [String: any Sendable]) {
        guard let data = try? JSONSerialization.data(withJSONObject: command) else { return }
        try? input.fileHandleForWriting.write(contentsOf: data + Data("\n".utf8))
    }

    /// The number of events so far: pass it to `waitFor(after:)` to wait for newer ones only.
    var mark: Int { condition.withLock { events.count } }

    /// Every event after `mark`, in the order the peer printed them.
    func events(after mark: Int) -> [PeerEvent] {
        condition.withLock { Array(events.dropFirst(mark)) }
    }

    func events(named name: String, after mark: Int = 0) -> [PeerEvent] {
        condition.withLock { events.dropFirst(mark).filter { $0.name == name } }
    }

    /// Blocks until an event named `name` (after `mark`) satisfies `predicate`, or throws.
    func waitFor(_ name: String, after mark: Int, timeout: Duration, where predicate: (PeerEvent) -> Bool = { _ in true }) throws -> PeerEvent {
        let deadline = Date().addingTimeInterval(Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let event = events.dropFirst(mark).first(where: { $0.name == name && predicate($0) }) { return event }
            if exited { throw TestBedError.peerExited(self.name) }
            if !condition.wait(until: deadline) {
                let seen = events.dropFirst(mark).map(\.description).suffix(12).joined(separator: "\n  ")
                throw TestBedError.timeout("\(name) from \(self.name); last events:\n  \(seen)")
            }
        }
    }

    /// Waits for the connected (or completed) state and returns the milliseconds from the start
    /// of gathering, as the helper measured them.
    func waitUntilConnected(after mark: Int, timeout: Duration = .seconds(20)) throws -> Int {
        let event = try waitFor("state", after: mark, timeout: timeout) { ["connected", "completed", "failed"].contains($0["state"] ?? "") }
        if event["state"] == "failed" {
            let failure = events(named: "failed", after: mark).last?.description ?? ""
            throw TestBedError.commandFailed("ICE on \(name)", 1, "failed \(failure)")
        }
        return event.milliseconds
    }

    /// Kills the helper at once (SIGKILL): its sockets close without a word to the peer.
    /// `ip netns exec` and `env` exec the helper, so the process is the helper itself.
    func kill() {
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func stop() {
        try? input.fileHandleForWriting.write(contentsOf: Data("quit\n".utf8))
        try? input.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
