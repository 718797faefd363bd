import Foundation
import Signaling
import TestSupport

/// Network namespaces and the real peers that live in them, for the interop tests. Every one is
/// created by a script under scripts/interop/ and removed by `stop()` (tests call it on every path).
enum InteropBed {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func script(_ name: String) -> String { packageRoot.appendingPathComponent("scripts/interop/\(name)").path }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func requireRoot() throws {
        guard getuid() == 0 else { throw Failure(description: "the interop tests need root (network namespaces); run `sudo make test`") }
    }

    /// Runs a program (found on the PATH) to completion and returns what it printed.
    @discardableResult
    static func run(_ arguments: [String]) async throws -> String {
        try await TestSupport.run("/usr/bin/env", arguments)
    }
}

/// A namespace joined to ours by one veth pair (scripts/interop/peer-netns): the peer runs
/// inside it, our media gathers on `hostInterface` only.
struct PeerNamespace {
    let hostInterface: String
    let hostAddress: String
    let peerAddress: String
    let name: String

    static func start() async throws -> PeerNamespace {
        try InteropBed.requireRoot()
        let line = try await InteropBed.run([InteropBed.script("peer-netns"), "up"]).split(separator: "\n").last.map(String.init) ?? ""
        let fields = line.split(separator: " ").map(String.init)
        guard fields.count == 4 else { throw InteropBed.Failure(description: "peer-netns up printed \"\(line)\"") }
        return PeerNamespace(hostInterface: fields[0], hostAddress: fields[1], peerAddress: fields[2], name: fields[3])
    }

    /// Drops `percent` % of UDP each way at random (iptables statistic inside the namespace).
    func dropPackets(percent: Double) async throws {
        try await InteropBed.run([InteropBed.script("peer-netns"), "loss", name, String(percent)])
    }

    func stop() async {
        _ = try? await InteropBed.run([InteropBed.script("peer-netns"), "down", name])
    }
}

/// The real Janus in a namespace of its own (scripts/interop/janus-netns), with AudioBridge
/// room 1234 configured; our media gathers on the host end of its veth pair.
struct JanusServer {
    let url: WebSocketURL
    let name: String

    /// janus-netns names the host end of the pair after the namespace: parley-jn-TAG → jn-TAG-h.
    var hostInterface: String { String(name.dropFirst("parley-".count)) + "-h" }

    static func start() async throws -> JanusServer {
        try InteropBed.requireRoot()
        let line = try await InteropBed.run([InteropBed.script("janus-netns"), "up"]).split(separator: "\n").last.map(String.init) ?? ""
        let fields = line.split(separator: " ").map(String.init)
        guard fields.count == 2 else { throw InteropBed.Failure(description: "janus-netns up printed \"\(line)\"") }
        return JanusServer(url: try WebSocketURL(parsing: fields[0]), name: fields[1])
    }

    func stop() async {
        _ = try? await InteropBed.run([InteropBed.script("janus-netns"), "down", name])
    }
}
