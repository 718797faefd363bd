import Foundation
import TestSupport
import Testing

/// The dual-stack flat bed: 10.0.1.1/fd00:1::1 and 10.0.1.2/fd00:1::2 on one veth pair.
@Suite(.serialized, .tags(.namespaces), .needsRoot) struct IPv6Tests {
    private static func hostAddresses(_ peer: PeerProcess, after mark: Int) -> [String] {
        peer.events(named: "candidate", after: mark).compactMap { event in
            guard let line = event["line"], line.contains(" typ host") else { return nil }
            let fields = line.split(separator: " ")
            return fields.count > 4 ? String(fields[4]) : nil
        }
    }

    @Test func agentsConnectOverAnIPv6HostPair() throws {
        let bed = try Topology(.flatIPv6)
        defer { bed.down() }
        // The link-local address leaves its tentative state after duplicate address detection;
        // gather after that, when it could be bound.
        let deadline = ContinuousClock.now + .seconds(10)
        while try bed.exec("a", ["ip", "-6", "addr", "show", "dev", bed.interface("a"), "scope", "link"]).contains("tentative") {
            guard ContinuousClock.now < deadline else { throw TestBedError.timeout("the link-local address to leave tentative") }
            usleep(100_000)
        }
        // IPv4 UDP between the hosts is dropped: only an IPv6 pair can work.
        for chain in ["INPUT", "OUTPUT"] { try bed.exec("a", ["iptables", "-I", chain, "-p", "udp", "-j", "DROP"]) }
        let (a, b) = try Peers.start(bed, a: ["role": "controlling", "ipv6": true], b: ["role": "controlled", "ipv6": true])
        defer { a.stop(); b.stop() }
        let mark = a.mark
        let milliseconds = try Peers.connect(a, b)
        let pair = try a.waitFor("selectedPair", after: mark, timeout: .seconds(5))
        Peers.report("flat, IPv6 host pair", milliseconds, pair: pair)
        #expect(pair["localAddress"] == "fd00:1::1")
        #expect(pair["remoteAddress"] == "fd00:1::2")
        #expect(pair["localType"] == "host" && pair["remoteType"] == "host")
        let addresses = Self.hostAddresses(a, after: mark)
        #expect(addresses.contains("fd00:1::1"))
        #expect(addresses.contains("10.0.1.1"))
        // A link-local address needs a scope id that a candidate cannot carry.
        #expect(!addresses.contains { $0.lowercased().hasPrefix("fe80") })
        try Peers.expectDataFlows(a, b)
    }

    @Test func withIPv6OffOnlyIPv4IsGathered() throws {
        let bed = try Topology(.flatIPv6)
        defer { bed.down() }
        let (a, b) = try Peers.start(bed, a: ["role": "controlling", "ipv6": false], b: ["role": "controlled", "ipv6": false])
        defer { a.stop(); b.stop() }
        let mark = a.mark
        _ = try Peers.connect(a, b)
        _ = try a.waitFor("gatheringComplete", after: mark, timeout: .seconds(5))
        let addresses = Self.hostAddresses(a, after: mark)
        #expect(addresses == ["10.0.1.1"])
        let pair = try a.waitFor("selectedPair", after: mark, timeout: .seconds(5))
        #expect(pair["localAddress"] == "10.0.1.1")
    }
}
