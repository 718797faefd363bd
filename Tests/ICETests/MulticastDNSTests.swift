import Foundation
import TestSupport
import Testing

/// Browsers hide host addresses behind random `<uuid>.local` names. The agent resolves them
/// through the system resolver; one it cannot resolve is skipped with a warning.
@Suite(.serialized, .tags(.namespaces), .needsRoot) struct MulticastDNSTests {
    private static let name = "5f0b5e6f-2a11-4b5e-8d84-6c7c4b8e2a4a.local"

    @Test func anUnresolvableLocalCandidateIsSkippedAndTheCallConnectsOnTheOthers() throws {
        let bed = try Topology(.flat)
        defer { bed.down() }
        let (a, b) = try Peers.start(bed, a: ["role": "controlling"], b: ["role": "controlled"])
        defer { a.stop(); b.stop() }
        let mark = a.mark
        // Before any real candidate: the name resolves nowhere (no hosts entry, no DNS route).
        a.send(["op": "remoteCandidate", "line": "candidate:9 1 udp 2122260223 \(Self.name) 50000 typ host"])
        let milliseconds = try Peers.connect(a, b)
        let warning = try a.waitFor("warning", after: mark, timeout: .seconds(10))
        Peers.report("flat, with an unresolvable .local candidate", milliseconds)
        #expect(warning["code"] == "ice-mdns-unresolvable")
        #expect(warning["message"]?.contains(Self.name) == true)
        #expect(a.events(named: "failed", after: mark).isEmpty)
        try Peers.expectDataFlows(a, b)
    }

    @Test func aResolvableLocalCandidateIsResolvedAndUsed() throws {
        let bed = try Topology(.flat)
        defer { bed.down() }
        try bed.addHostName(Self.name, address: "10.0.1.2", in: "a")
        let a = try PeerProcess("A", in: bed, host: "a")
        let b: PeerProcess
        do { b = try PeerProcess("B", in: bed, host: "b") } catch { a.stop(); throw error }
        defer { a.stop(); b.stop() }
        // A learns B only by name; B learns nothing of A but what A's checks show it. So A must
        // resolve the name to check anything, and nothing connects unless it does.
        let name = Self.name
        b.signal(to: a) { line in
            line.contains("10.0.1.2") ? line.replacingOccurrences(of: "10.0.1.2", with: name) : nil
        }
        a.signal(to: b) { _ in nil }
        a.send(["op": "create", "role": "controlling"])
        b.send(["op": "create", "role": "controlled"])
        let mark = a.mark
        let milliseconds = try Peers.connect(a, b)
        let pair = try a.waitFor("selectedPair", after: mark, timeout: .seconds(5))
        Peers.report("flat, peer known only by a .local name", milliseconds, pair: pair)
        #expect(pair["remoteAddress"] == "10.0.1.2")
        #expect(a.events(named: "warning", after: mark).isEmpty)
        try Peers.expectDataFlows(a, b)
    }
}
