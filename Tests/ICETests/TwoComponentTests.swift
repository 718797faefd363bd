import TestSupport
import Testing

/// Without rtcp-mux a stream has two components (RTP and RTCP), each with its own pair.
@Suite(.serialized, .tags(.namespaces), .needsRoot) struct TwoComponentTests {
    @Test func bothComponentsConnectAndCarryTheirOwnData() throws {
        let bed = try Topology(.flat)
        defer { bed.down() }
        let (a, b) = try Peers.start(bed, a: ["role": "controlling", "components": 2], b: ["role": "controlled", "components": 2])
        defer { a.stop(); b.stop() }
        let mark = a.mark
        let milliseconds = try Peers.connect(a, b)
        let pairs = try [1, 2].map { component in
            try a.waitFor("selectedPair", after: mark, timeout: .seconds(5)) { $0["component"] == "\(component)" }
        }
        Peers.report("flat, two components", milliseconds, pair: pairs[0])
        // Each component has its own socket: the same addresses, different ports.
        #expect(pairs[0]["localAddress"] == "10.0.1.1" && pairs[1]["localAddress"] == "10.0.1.1")
        #expect(pairs[0]["description"] != pairs[1]["description"])
        let candidates = a.events(named: "candidate", after: mark).compactMap { $0["line"]?.split(separator: " ").dropFirst().first }
        #expect(Set(candidates) == ["1", "2"])

        for component in [1, 2] {
            let markA = a.mark, markB = b.mark
            a.send(["op": "send", "text": "A on \(component)", "component": component])
            b.send(["op": "send", "text": "B on \(component)", "component": component])
            let atB = try b.waitFor("received", after: markB, timeout: .seconds(5)) { $0["text"] == "A on \(component)" }
            let atA = try a.waitFor("received", after: markA, timeout: .seconds(5)) { $0["text"] == "B on \(component)" }
            #expect(atB["component"] == "\(component)")
            #expect(atA["component"] == "\(component)")
        }
    }
}
