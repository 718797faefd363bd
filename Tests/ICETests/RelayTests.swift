import TestSupport
import Testing

/// Through coturn in the public namespace of the NAT topology.
@Suite(.serialized, .tags(.namespaces, .realPeer, .slow), .needsRoot) struct RelayTests {
    private static let server = Topology.publicServer

    private func relayOnly(_ url: String, expectTransport transport: String, label: String) throws {
        let bed = try Topology(.nat)
        defer { bed.down() }
        let turn = try Coturn(in: bed)
        defer { turn.stop() }
        let (a, b) = try Peers.start(
            bed,
            a: ["role": "controlling", "relayOnly": true, "servers": [turn.server(url)], "caFile": turn.certificate],
            b: ["role": "controlled", "servers": [["url": "stun:\(Self.server)"]]])
        defer { a.stop(); b.stop() }
        let mark = a.mark
        let milliseconds = try Peers.connect(a, b)
        let pair = try a.waitFor("selectedPair", after: mark, timeout: .seconds(5))
        Peers.report(label, milliseconds, pair: pair)
        #expect(pair["localType"] == "relay")
        #expect(pair["transport"] == transport)
        #expect(a.events(named: "candidate").allSatisfy { $0["line"]?.contains(" typ relay") == true })
        try Peers.expectDataFlows(a, b)
    }

    @Test func relayOnlyOverTURNUDP() throws {
        try relayOnly("turn:\(Self.server):3478?transport=udp", expectTransport: "udp", label: "NAT, relay-only, TURN/UDP")
    }

    @Test func relayOnlyOverTURNTCP() throws {
        try relayOnly("turn:\(Self.server):3478?transport=tcp", expectTransport: "tcp", label: "NAT, relay-only, TURN/TCP")
    }

    @Test func relayOnlyOverTURNS() throws {
        try relayOnly("turns:\(Self.server):5349", expectTransport: "tls", label: "NAT, relay-only, TURNS")
    }

    @Test func wrongTURNPasswordIsATypedAuthenticationError() throws {
        let bed = try Topology(.nat)
        defer { bed.down() }
        let turn = try Coturn(in: bed)
        defer { turn.stop() }
        let a = try PeerProcess("A", in: bed, host: "a")
        defer { a.stop() }
        let wrong = "not-the-password"
        a.send(["op": "create", "role": "controlling", "relayOnly": true, "servers": [turn.server("turn:\(Self.server)", password: wrong)]])
        let mark = a.mark
        a.send(["op": "gather"])
        let failure = try a.waitFor("failed", after: mark, timeout: .seconds(10))
        print("ICE timing | NAT, wrong TURN password | gathering to failure: \(failure.milliseconds) ms | \(failure["message"] ?? "")")
        #expect(failure["code"] == "turn-authentication")
        #expect(failure["message"]?.contains("TURN authentication") == true)
        #expect(failure["message"]?.contains(wrong) == false)
        #expect(failure["message"]?.contains(Coturn.password) == false)
        _ = try a.waitFor("state", after: mark, timeout: .seconds(2)) { $0["state"] == "failed" }
    }
}
