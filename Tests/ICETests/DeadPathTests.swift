import Foundation
import TestSupport
import Testing

/// How soon a live session notices that its path died, and that a lossy but working path does
/// not look dead. Times are measured by the test from the moment it cut the path.
@Suite(.serialized, .tags(.namespaces, .slow), .needsRoot) struct DeadPathTests {
    private static let states: Set<String> = ["disconnected", "failed"]

    private static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }

    private static func cut(_ bed: Topology, _ action: String) throws {
        for chain in ["INPUT", "OUTPUT"] { try bed.exec("a", ["iptables", action, chain, "-p", "udp", "-j", "DROP"]) }
    }

    @Test func droppedPathIsReportedWithinSecondsAndHeardAgainWhenItReturns() throws {
        let bed = try Topology(.flat)
        defer { bed.down() }
        let config: [String: any Sendable] = ["consentTimeoutMs": 6000]
        let (a, b) = try Peers.start(bed, a: config.merging(["role": "controlling"]) { $1 }, b: config.merging(["role": "controlled"]) { $1 })
        defer { a.stop(); b.stop() }
        _ = try Peers.connect(a, b)
        try Peers.expectDataFlows(a, b)

        var markA = a.mark, markB = b.mark
        try Self.cut(bed, "-I")
        var cut = ContinuousClock.now
        let lostA = try a.waitFor("state", after: markA, timeout: .seconds(10)) { Self.states.contains($0["state"] ?? "") }
        let lostB = try b.waitFor("state", after: markB, timeout: .seconds(10)) { Self.states.contains($0["state"] ?? "") }
        let disconnectedA = Self.milliseconds(lostA.receivedAt - cut), disconnectedB = Self.milliseconds(lostB.receivedAt - cut)
        #expect(lostA["state"] == "disconnected")
        #expect(lostB["state"] == "disconnected")
        #expect(disconnectedA < 5000)
        #expect(disconnectedB < 5000)

        markA = a.mark
        markB = b.mark
        try Self.cut(bed, "-D")
        let restored = ContinuousClock.now
        let backA = try a.waitFor("state", after: markA, timeout: .seconds(5)) { ["connected", "completed"].contains($0["state"] ?? "") }
        _ = try b.waitFor("state", after: markB, timeout: .seconds(5)) { ["connected", "completed"].contains($0["state"] ?? "") }
        try Peers.expectDataFlows(a, b, tag: "after the path returned")

        markA = a.mark
        try Self.cut(bed, "-I")
        cut = ContinuousClock.now
        let failed = try a.waitFor("failed", after: markA, timeout: .seconds(15))
        let failedAfter = Self.milliseconds(failed.receivedAt - cut)
        print("ICE timing | dead path, all UDP dropped | disconnected: A \(disconnectedA) ms, B \(disconnectedB) ms | heard again: \(Self.milliseconds(backA.receivedAt - restored)) ms | consent lost (6 s timeout): \(failedAfter) ms")
        #expect(failed["code"] == "ice-consent-lost")
        #expect(failedAfter >= 5500 && failedAfter < 8000)
        // RFC 7675: no more sending once consent is lost.
        let markSent = a.mark
        a.send(["op": "send", "text": "after consent lost"])
        let sent = try a.waitFor("sent", after: markSent, timeout: .seconds(5))
        #expect(sent["ok"] == "0" || sent["ok"] == "false")
    }

    @Test func killedPeerIsReportedWithinSeconds() throws {
        try Peers.connectedOnFlat { _, a, b in
            try Peers.expectDataFlows(a, b)
            let markA = a.mark
            b.kill()
            let killed = ContinuousClock.now
            let lost = try a.waitFor("state", after: markA, timeout: .seconds(10)) { Self.states.contains($0["state"] ?? "") }
            let milliseconds = Self.milliseconds(lost.receivedAt - killed)
            print("ICE timing | dead path, peer killed (SIGKILL) | A \(lost["state"] ?? ""): \(milliseconds) ms")
            #expect(lost["state"] == "disconnected")
            #expect(milliseconds < 5000)
        }
    }

    /// A relayed pair has no socket of its own in libnice's API: over TURN/UDP its base is a
    /// host socket, over TCP and TLS a connection to the server (or the local TLS tunnel), read
    /// through TCP_INFO; the checks and answers travel through the relay.
    @Test(arguments: ["turn:\(Topology.publicServer)?transport=udp", "turn:\(Topology.publicServer)?transport=tcp", "turns:\(Topology.publicServer)"])
    func relayedPathStaysUpWhenIdleAndIsReportedWhenThePeerDies(url: String) throws {
        let bed = try Topology(.nat)
        defer { bed.down() }
        let turn = try Coturn(in: bed)
        defer { turn.stop() }
        let (a, b) = try Peers.start(
            bed,
            a: ["role": "controlling", "relayOnly": true, "servers": [turn.server(url)], "caFile": turn.certificate],
            b: ["role": "controlled", "servers": [["url": "stun:\(Topology.publicServer)"]]])
        defer { a.stop(); b.stop() }
        let mark = a.mark
        _ = try Peers.connect(a, b)
        let pair = try a.waitFor("selectedPair", after: mark, timeout: .seconds(5))
        #expect(pair["localType"] == "relay")
        let markA = a.mark
        // Idle for longer than the disconnect timeout: only checks and their answers cross.
        #expect(throws: TestBedError.self) {
            try a.waitFor("state", after: markA, timeout: .seconds(5)) { Self.states.contains($0["state"] ?? "") }
        }
        b.kill()
        let killed = ContinuousClock.now
        let lost = try a.waitFor("state", after: markA, timeout: .seconds(10)) { Self.states.contains($0["state"] ?? "") }
        let milliseconds = Self.milliseconds(lost.receivedAt - killed)
        print("ICE timing | dead path, relay over \(pair["transport"] ?? ""), peer killed | idle 5 s: no change | A \(lost["state"] ?? ""): \(milliseconds) ms")
        #expect(lost["state"] == "disconnected")
        #expect(milliseconds < 5000)
    }

    /// B receives a steady stream and so never probes; A hears nothing but the answers to its
    /// own consent checks. Were they malformed, B's libnice would not answer and A would report
    /// the path silent within 3 s.
    @Test func aSenderThatGetsNoMediaBackStaysConnectedOnTheAnswersToItsChecks() throws {
        try Peers.connectedOnFlat { bed, a, b in
            let markA = a.mark, markB = b.mark
            let counter = try STUNCounter(bed, host: "a", seconds: 6)
            a.send(["op": "stream", "count": 400, "intervalMs": 20])
            let counts = try counter.counts()
            let streamed = try a.waitFor("streamed", after: markA, timeout: .seconds(30))
            #expect(b.events(named: "received", after: markB).count > 300)
            let states = a.events(named: "state", after: markA).compactMap { $0["state"] }
            print("ICE timing | one-way media, \(streamed["sent"] ?? "?") packets at 50/s, nothing back | A's state changes: \(states.isEmpty ? "none" : states.joined(separator: ", ")) | STUN at A in 6 s: \(counts.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: " "))")
            #expect(!states.contains { Self.states.contains($0) })
            // A's checks (Binding requests out) get success answers, not 401s.
            #expect(counts["out 0x0001", default: 0] >= 5)
            #expect(counts["in 0x0101", default: 0] >= counts["out 0x0001", default: 0] - 1)
            #expect(counts["in 0x0111", default: 0] == 0)
        }
    }

    @Test func lossyPathDoesNotLookDead() throws {
        let seconds = Int(ProcessInfo.processInfo.environment["PARLEY_ICE_LOSS_SECONDS"] ?? "") ?? 20
        try Peers.connectedOnFlat { bed, a, b in
            let markA = a.mark, markB = b.mark
            for chain in ["INPUT", "OUTPUT"] {
                try bed.exec("a", ["iptables", "-I", chain, "-p", "udp", "-m", "statistic", "--mode", "random", "--probability", "0.05", "-j", "DROP"])
            }
            // Idle: no media, only the agents' own checks cross the lossy link.
            let start = ContinuousClock.now
            let deadline = start + .seconds(seconds)
            var lost: PeerEvent?
            while ContinuousClock.now < deadline, lost == nil {
                lost = try? a.waitFor("state", after: markA, timeout: .seconds(1)) { Self.states.contains($0["state"] ?? "") }
                if lost == nil { lost = b.events(named: "state", after: markB).first { Self.states.contains($0["state"] ?? "") } }
            }
            let report = lost.map { "\($0["state"] ?? "") after \(Self.milliseconds($0.receivedAt - start)) ms" } ?? "none"
            print("ICE timing | 5% loss each way, idle, \(seconds) s | disconnected/failed: \(report)")
            #expect(lost == nil)
            // One packet each way would itself be lost one time in ten: check the pair without the loss.
            for chain in ["INPUT", "OUTPUT"] {
                try bed.exec("a", ["iptables", "-D", chain, "-p", "udp", "-m", "statistic", "--mode", "random", "--probability", "0.05", "-j", "DROP"])
            }
            try Peers.expectDataFlows(a, b)
        }
    }
}
