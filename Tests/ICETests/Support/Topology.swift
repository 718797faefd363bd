import Foundation

/// One test bed from scripts/netns/topology, removed by `down()` (tests call it in `defer`).
final class Topology: Sendable {
    enum Kind: String {
        case flat
        case flatIPv6 = "flat-ipv6"
        case nat
        case symmetricNAT = "symmetric-nat"
        case udpBlocked = "udp-blocked"
    }

    let id: String
    let kind: Kind
    private static let script = Shell.packageRoot.appendingPathComponent("scripts/netns/topology").path

    init(_ kind: Kind) throws {
        try Shell.requireRoot()
        Self.sweepOnce
        // Short and unique: interface names derive from it and may not exceed 15 characters.
        // It carries our pid, so that a later run can remove what a crashed run left behind.
        let pid = String(getpid(), radix: 36)
        id = "i" + String(repeating: "0", count: max(0, 5 - pid.count)) + pid + String(UInt16.random(in: 0..<46656), radix: 36).leftPadded(3)
        self.kind = kind
        try Shell.run([Self.script, "up", kind.rawValue, id])
    }

    /// Removes test beds whose creating process is gone (a crashed or killed test run).
    private static let sweepOnce: Void = {
        let names = (try? Shell.run(["ip", "netns", "list"])) ?? ""
        var stale: Set<String> = []
        for line in names.split(separator: "\n") {
            let name = line.split(separator: " ").first.map(String.init) ?? ""
            guard name.count > 10, name.hasPrefix("i"), name.dropFirst(9).hasPrefix("-") else { continue }
            guard let pid = Int32(name.dropFirst().prefix(5), radix: 36), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { stale.insert(String(name.prefix(9))) }
        }
        for id in stale { _ = try? Shell.run([script, "down", id]) }
    }()

    func namespace(_ host: String) -> String { "\(id)-\(host)" }

    /// Runs a command inside the namespace of `host` (a, b, ra, rb, pub).
    @discardableResult
    func exec(_ host: String, _ arguments: [String]) throws -> String {
        try Shell.run(["ip", "netns", "exec", namespace(host)] + arguments)
    }

    func interface(_ host: String) -> String { "\(id)\(host)0" }

    /// Makes `name` resolve to `address` inside `host`'s namespace (removed by `down()`).
    func addHostName(_ name: String, address: String, in host: String) throws {
        try Shell.run([Self.script, "hosts", id, host, name, address])
    }

    func down() {
        _ = try? Shell.run([Self.script, "down", id])
    }

    /// The STUN/TURN server's address in the public namespace.
    static let publicServer = "198.51.100.1"
}

private extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
