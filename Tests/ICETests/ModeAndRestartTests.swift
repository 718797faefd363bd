import TestSupport
import Testing

@Suite(.serialized, .tags(.namespaces), .needsRoot) struct ModeAndRestartTests {
    @Test func vanillaHandsOverAllCandidatesAtOnceAndConnects() throws {
        let bed = try Topology(.flat)
        defer { bed.down() }
        let vanilla: [String: any Sendable] = ["mode": "vanilla", "collectionTimeoutMs": 5000]
        let (a, b) = try Peers.start(
            bed, a: vanilla.merging(["role": "controlling"]) { $1 }, b: vanilla.merging(["role": "controlled"]) { $1 })
        defer { a.stop(); b.stop() }
        let mark = a.mark
        let milliseconds = try Peers.connect(a, b)
        let pair = try a.waitFor("selectedPair", after: mark, timeout: .seconds(5))
        Peers.report("flat, vanilla, host pair", milliseconds, pair: pair)
        // Vanilla: the candidates come out as one batch that ends the gathering: one unbroken
        // run of candidate events, then gatheringComplete. (Their timestamps show it too, but a
        // starved machine can stretch a batch over milliseconds, so the order is what is checked.)
        _ = try a.waitFor("gatheringComplete", after: mark, timeout: .seconds(1))
        let names = a.events(after: mark).map(\.name)
        let first = try #require(names.firstIndex(of: "candidate"))
        let complete = try #require(names.firstIndex(of: "gatheringComplete"))
        #expect(first < complete)
        #expect(names[first..<complete].allSatisfy { $0 == "candidate" })
        #expect(!names[complete...].contains("candidate"))
        try Peers.expectDataFlows(a, b)
    }

    @Test func vanillaStopsWaitingAtTheCollectionTimeout() throws {
        let bed = try Topology(.flat)
        defer { bed.down() }
        let a = try PeerProcess("A", in: bed, host: "a")
        defer { a.stop() }
        // A TURN server on an address no one holds: its allocation would take libnice many seconds to give up.
        a.send([
            "op": "create", "role": "controlling", "mode": "vanilla", "collectionTimeoutMs": 1000,
            "servers": [["url": "turn:10.0.1.99", "username": "u", "credential": "p"]],
        ])
        let mark = a.mark
        a.send(["op": "gather"])
        let complete = try a.waitFor("gatheringComplete", after: mark, timeout: .seconds(5))
        print("ICE timing | flat, vanilla, unreachable TURN | gathering to collection timeout: \(complete.milliseconds) ms")
        #expect(complete.milliseconds >= 950)
        #expect(complete.milliseconds < 2500)
        let candidates = a.events(named: "candidate", after: mark)
        #expect(candidates.contains { $0["line"]?.contains("10.0.1.1") == true && $0["line"]?.contains("typ host") == true })
    }

    @Test func restartAfterTheAddressChangesSelectsANewPairAndDataFlows() throws {
        try Peers.connectedOnFlat { bed, a, b in
            try Peers.expectDataFlows(a, b, tag: "before")

            // A moves to a new address; the old one disappears under the live session. (Without
            // promote_secondaries, deleting the primary address would delete the new one too.)
            try bed.exec("a", ["sysctl", "-qw", "net.ipv4.conf.\(bed.interface("a")).promote_secondaries=1"])
            try bed.exec("a", ["ip", "addr", "add", "10.0.1.3/24", "dev", bed.interface("a")])
            try bed.exec("a", ["ip", "addr", "del", "10.0.1.1/24", "dev", bed.interface("a")])
            let mark = a.mark, markB = b.mark
            a.send(["op": "restart"])
            let credentials = try a.waitFor("credentials", after: mark, timeout: .seconds(5))
            let pair = try a.waitFor("selectedPair", after: mark, timeout: .seconds(20))
            // B (controlled) switches when A's nomination reaches it.
            _ = try b.waitFor("selectedPair", after: markB, timeout: .seconds(20))
            Peers.report("flat, ICE restart after address change", pair.milliseconds, pair: pair)
            #expect(pair["localAddress"] == "10.0.1.3")
            #expect(credentials["ufrag"] != nil)
            try Peers.expectDataFlows(a, b, tag: "after")
        }
    }

    @Test func restartKeepsTheOldPairCarryingDataUntilTheNewOneIsSelected() throws {
        try Peers.connectedOnFlat { _, a, b in
            let markA = a.mark, markB = b.mark
            // The restart and the packet leave together: the packet goes before any new pair exists.
            a.send(["op": "restart"])
            a.send(["op": "send", "text": "during restart"])
            _ = try b.waitFor("received", after: markB, timeout: .seconds(5)) { $0["text"] == "during restart" }
            let sent = try a.waitFor("sent", after: markA, timeout: .seconds(5))
            #expect(sent["ok"] == "1" || sent["ok"] == "true")
            let pair = try a.waitFor("selectedPair", after: markA, timeout: .seconds(20))
            _ = try b.waitFor("selectedPair", after: markB, timeout: .seconds(20))
            Peers.report("flat, ICE restart, same address", pair.milliseconds, pair: pair)
            #expect(a.events(named: "state", after: markA).allSatisfy { $0["state"] != "failed" && $0["state"] != "disconnected" })
            try Peers.expectDataFlows(a, b, tag: "after")
        }
    }
}
