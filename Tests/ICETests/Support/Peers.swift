import Foundation
import Testing

/// Two helpers signalling to each other, and what every connectivity test checks.
enum Peers {
    static func start(_ topology: Topology, a configA: [String: any Sendable], b configB: [String: any Sendable], hostA: String = "a", hostB: String = "b") throws -> (PeerProcess, PeerProcess) {
        let a = try PeerProcess("A", in: topology, host: hostA)
        let b: PeerProcess
        do {
            b = try PeerProcess("B", in: topology, host: hostB)
        } catch {
            a.stop()
            throw error
        }
        a.signal(to: b)
        b.signal(to: a)
        a.send(configA.merging(["op": "create"]) { _, new in new })
        b.send(configB.merging(["op": "create"]) { _, new in new })
        return (a, b)
    }

    /// Starts gathering on both and waits for A and B to connect; returns A's gathering-to-connected time.
    static func connect(_ a: PeerProcess, _ b: PeerProcess, timeout: Duration = .seconds(20)) throws -> Int {
        let markA = a.mark, markB = b.mark
        a.send(["op": "gather"])
        b.send(["op": "gather"])
        let milliseconds = try a.waitUntilConnected(after: markA, timeout: timeout)
        _ = try b.waitUntilConnected(after: markB, timeout: timeout)
        return milliseconds
    }

    /// A payload each way must arrive over the selected pairs.
    static func expectDataFlows(_ a: PeerProcess, _ b: PeerProcess, tag: String = "") throws {
        let markA = a.mark, markB = b.mark
        let toB = "from A \(tag) \(UInt32.random(in: 0..<UInt32.max))"
        let toA = "from B \(tag) \(UInt32.random(in: 0..<UInt32.max))"
        a.send(["op": "send", "text": toB])
        b.send(["op": "send", "text": toA])
        _ = try b.waitFor("received", after: markB, timeout: .seconds(5)) { $0["text"] == toB }
        _ = try a.waitFor("received", after: markA, timeout: .seconds(5)) { $0["text"] == toA }
    }

    static func report(_ name: String, _ milliseconds: Int, pair: PeerEvent? = nil) {
        print("ICE timing | \(name) | gathering to connected: \(milliseconds) ms\(pair.map { " | \($0["description"] ?? "")" } ?? "")")
    }
}

extension Peers {
    /// The flat topology with A controlling and B controlled, connected; `body` gets the bed and
    /// both peers, which stop (and the bed comes down) when it returns or throws.
    static func connectedOnFlat(_ body: (Topology, PeerProcess, PeerProcess) throws -> Void) throws {
        let bed = try Topology(.flat)
        defer { bed.down() }
        let (a, b) = try start(bed, a: ["role": "controlling"], b: ["role": "controlled"])
        defer { a.stop(); b.stop() }
        _ = try connect(a, b)
        try body(bed, a, b)
    }
}
