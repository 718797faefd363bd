import TestSupport
import Testing

/// Both peers behind their own NAT router, coturn in the public namespace.
@Suite(.serialized, .tags(.namespaces, .realPeer), .needsRoot) struct NATTests {
    private static let server = Topology.publicServer

    @Test func coneNATConnectsThroughServerReflexiveCandidates() throws {
        let bed = try Topology(.nat)
        defer { bed.down() }
        let turn = try Coturn(in: bed)
        defer { turn.stop() }
        let stun = [["url": "stun:\(Self.server)"]]
        let (a, b) = try Peers.start(bed, a: ["role": "controlling", "servers": stun], b: ["role": "controlled", "servers": stun])
        defer { a.stop(); b.stop() }
        let mark = a.mark
        let milliseconds = try Peers.connect(a, b)
        let pair = try a.waitFor("selectedPair", after: mark, timeout: .seconds(5))
        Peers.report("NAT (cone), STUN, srflx", milliseconds, pair: pair)
        // Private addresses do not route between the sites; the pair must use a mapped address.
        #expect(pair["remoteType"] == "srflx" || pair["remoteType"] == "prflx")
        #expect(pair["remoteAddress"] == "203.0.113.2")
        #expect(pair["localType"] != "relay")
        #expect(a.events(named: "candidate").contains { $0["line"]?.contains("typ srflx") == true })
        try Peers.expectDataFlows(a, b)
    }

    @Test func symmetricNATFallsBackToTheRelay() throws {
        let bed = try Topology(.symmetricNAT)
        defer { bed.down() }
        let turn = try Coturn(in: bed)
        defer { turn.stop() }
        let servers = [["url": "stun:\(Self.server)"], turn.server("turn:\(Self.server)")]
        let (a, b) = try Peers.start(bed, a: ["role": "controlling", "servers": servers], b: ["role": "controlled", "servers": servers])
        defer { a.stop(); b.stop() }
        let mark = a.mark
        let milliseconds = try Peers.connect(a, b, timeout: .seconds(30))
        let pair = try a.waitFor("selectedPair", after: mark, timeout: .seconds(5))
        Peers.report("symmetric NAT, STUN+TURN, relay", milliseconds, pair: pair)
        #expect(pair["localType"] == "relay" || pair["remoteType"] == "relay")
        try Peers.expectDataFlows(a, b)
    }

    @Test func udpBlockedChoosesTURNOverTCPOrTLS() throws {
        let bed = try Topology(.udpBlocked)
        defer { bed.down() }
        let turn = try Coturn(in: bed)
        defer { turn.stop() }
        let serversA = [
            ["url": "stun:\(Self.server)"],
            turn.server("turn:\(Self.server)?transport=udp"),
            turn.server("turn:\(Self.server)?transport=tcp"),
            turn.server("turns:\(Self.server)"),
        ]
        let (a, b) = try Peers.start(
            bed,
            a: ["role": "controlling", "servers": serversA, "caFile": turn.certificate],
            b: ["role": "controlled", "servers": [["url": "stun:\(Self.server)"]]])
        defer { a.stop(); b.stop() }
        let mark = a.mark
        let milliseconds = try Peers.connect(a, b, timeout: .seconds(30))
        let pair = try a.waitFor("selectedPair", after: mark, timeout: .seconds(5))
        Peers.report("UDP blocked, TURN/TCP or TURNS", milliseconds, pair: pair)
        #expect(pair["localType"] == "relay")
        #expect(pair["transport"] == "tcp" || pair["transport"] == "tls")
        try Peers.expectDataFlows(a, b)
    }
}
