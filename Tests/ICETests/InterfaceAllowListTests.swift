import TestSupport
import Testing

/// Gathering on named interfaces only. A's namespace gets a second link (10.0.2.1) so that
/// there is something to leave out.
@Suite(.serialized, .tags(.namespaces), .needsRoot) struct InterfaceAllowListTests {
    private static func hostAddresses(_ peer: PeerProcess, after mark: Int) -> Set<String> {
        Set(peer.events(named: "candidate", after: mark).compactMap { event in
            guard let line = event["line"], line.contains(" typ host") else { return nil }
            let fields = line.split(separator: " ")
            return fields.count > 4 ? String(fields[4]) : nil
        })
    }

    private static func addSecondLink(_ bed: Topology) throws {
        try bed.exec("a", ["ip", "link", "add", "extra0", "type", "veth", "peer", "name", "extra1"])
        try bed.exec("a", ["ip", "addr", "add", "10.0.2.1/24", "dev", "extra0"])
        try bed.exec("a", ["ip", "link", "set", "extra0", "up"])
        try bed.exec("a", ["ip", "link", "set", "extra1", "up"])
    }

    @Test func onlyTheNamedInterfaceIsGatheredOn() throws {
        let bed = try Topology(.flat)
        defer { bed.down() }
        try Self.addSecondLink(bed)

        // Without a list both links are used: the list below has something to leave out.
        let unrestricted = try PeerProcess("A0", in: bed, host: "a")
        defer { unrestricted.stop() }
        unrestricted.send(["op": "create", "role": "controlling"])
        let markAll = unrestricted.mark
        unrestricted.send(["op": "gather"])
        _ = try unrestricted.waitFor("gatheringComplete", after: markAll, timeout: .seconds(5))
        #expect(Self.hostAddresses(unrestricted, after: markAll) == ["10.0.1.1", "10.0.2.1"])

        let (a, b) = try Peers.start(bed, a: ["role": "controlling", "interfaces": [bed.interface("a")]], b: ["role": "controlled"])
        defer { a.stop(); b.stop() }
        let mark = a.mark
        let milliseconds = try Peers.connect(a, b)
        _ = try a.waitFor("gatheringComplete", after: mark, timeout: .seconds(5))
        Peers.report("flat, interface allow list", milliseconds)
        #expect(Self.hostAddresses(a, after: mark) == ["10.0.1.1"])
        try Peers.expectDataFlows(a, b)
    }

    @Test func aListMatchingNothingFailsWithATypedError() throws {
        let bed = try Topology(.flat)
        defer { bed.down() }
        let a = try PeerProcess("A", in: bed, host: "a")
        defer { a.stop() }
        a.send(["op": "create", "role": "controlling", "interfaces": ["nosuch0"]])
        let mark = a.mark
        a.send(["op": "gather"])
        let failure = try a.waitFor("failed", after: mark, timeout: .seconds(5))
        #expect(failure["code"] == "ice-gathering")
        #expect(failure["message"]?.contains("nosuch0") == true)
        _ = try a.waitFor("state", after: mark, timeout: .seconds(2)) { $0["state"] == "failed" }
        #expect(a.events(named: "candidate", after: mark).isEmpty)
    }
}
