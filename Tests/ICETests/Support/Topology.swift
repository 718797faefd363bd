import Foundation

/// One test bed from scripts/netns/topology, removed by `down()` (tests call it in `defer`).
final class Topology: Sendable {
    enum Kind: String {
        case flat
        case nat
        case symmetricNAT = "symmetric-nat"
        case udpBlocked = "udp-blocked"
    }

    let id: String
    let kind: Kind
    private static let script = Shell.packageRoot.appendingPathComponent("scripts/netns/topology").path

    init(_ kind: Kind) throws {
        try Shell.requireRoot()
        // Short and unique: interface names derive from it and may not exceed 15 characters.
        id = "i" + String(UInt32.random(in: 0..<UInt32.max), radix: 36)
        self.kind = kind
        try Shell.run([Self.script, "up", kind.rawValue, id])
    }

    func namespace(_ host: String) -> String { "\(id)-\(host)" }

    /// Runs a command inside the namespace of `host` (a, b, ra, rb, pub).
    @discardableResult
    func exec(_ host: String, _ arguments: [String]) throws -> String {
        try Shell.run(["ip", "netns", "exec", namespace(host)] + arguments)
    }

    func interface(_ host: String) -> String { "\(id)\(host)0" }

    func down() {
        _ = try? Shell.run([Self.script, "down", id])
    }

    /// The STUN/TURN server's address in the public namespace.
    static let publicServer = "198.51.100.1"
}
