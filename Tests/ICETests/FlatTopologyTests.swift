import TestSupport
import Testing

@Suite(.serialized, .tags(.namespaces), .needsRoot) struct FlatTopologyTests {
    @Test func hostCandidatesConnectDirectlyAndCarryData() throws {
        let bed = try Topology(.flat)
        defer { bed.down() }
        let (a, b) = try Peers.start(bed, a: ["role": "controlling"], b: ["role": "controlled"])
        defer { a.stop(); b.stop() }
        let mark = a.mark
        let milliseconds = try Peers.connect(a, b)
        let pair = try a.waitFor("selectedPair", after: mark, timeout: .seconds(5))
        Peers.report("flat, trickle, host pair", milliseconds, pair: pair)
        #expect(pair["localType"] == "host")
        #expect(pair["remoteType"] == "host")
        #expect(pair["localAddress"] == "10.0.1.1")
        #expect(pair["remoteAddress"] == "10.0.1.2")
        #expect(pair["transport"] == "udp")
        try Peers.expectDataFlows(a, b)
    }
}
