import CNice
import Foundation
import ICE
import Locking
import Synchronization
import TestSupport
import Testing

/// Two agents of this process on loopback, each on its own network loop: every packet arrives on
/// the receiving agent's loop thread, and a sender racing the agent's close neither crashes nor
/// (under `swift test --sanitize=thread`) races: `Generation.closed` is an atomic written by the
/// loop and read by `send` on the sender's thread.
@Suite(.serialized) struct LoopThreadTests {
    /// The loop's thread carries its name where `top -H` and `perf` look (/proc/self/task/*/comm):
    /// Foundation's `Thread.name` alone names no thread on Linux (`ThreadName`).
    @Test func theLoopsThreadCarriesItsName() throws {
        _ = NetworkLoop(name: "parley-t-named")
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")
        let names = tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(names.contains("parley-t-named"))
    }

    @Test func packetsArriveOnTheAgentsOwnLoopAndSendingRacesCloseSafely() async throws {
        let loopA = NetworkLoop(name: "parley-t-loop-a")
        let loopB = NetworkLoop(name: "parley-t-loop-b")
        let a = try ICEAgent(configuration: ICEAgentConfiguration(role: .controlling, allowedInterfaces: ["lo"], ipv6: false), loop: loopA)
        let b = try ICEAgent(configuration: ICEAgentConfiguration(role: .controlled, allowedInterfaces: ["lo"], ipv6: false), loop: loopB)
        let received = Lock((onLoop: 0, offLoop: 0))
        b.setReceiveHandler { _, _ in
            let onLoop = loopB.isCurrentThread
            received.withLock { onLoop ? ($0.onLoop += 1) : ($0.offLoop += 1) }
        }
        try await Self.connect(a, b)

        let payload = [UInt8](repeating: 0x80, count: 100)
        for _ in 0..<50 { _ = payload.withUnsafeBytes { a.send($0) } }
        try await waitUntil("40 of 50 packets received on the loop", within: 5) { received.withLock { $0.onLoop } >= 40 }
        #expect(received.withLock { $0.onLoop } >= 40)
        #expect(received.withLock { $0.offLoop } == 0)
        #expect(!loopA.isCurrentThread && !loopB.isCurrentThread)

        // A sender on another thread keeps sending while the agent closes on its loop.
        let stop = Atomic<Bool>(false)
        let attempts = Atomic<Int>(0)
        let exited = Atomic<Bool>(false)
        let sender = Thread {
            while !stop.load(ordering: .relaxed) {
                _ = payload.withUnsafeBytes { a.send($0) }
                attempts.add(1, ordering: .relaxed)
            }
            exited.store(true, ordering: .releasing)
        }
        sender.start()
        try await waitUntil("the sender is sending") { attempts.load(ordering: .relaxed) >= 20 }
        a.close()
        // close() ends the agent's events; the sender goes on until after that.
        let eventsEnded = Atomic<Bool>(false)
        let drain = Task {
            for await _ in a.events {}
            eventsEnded.store(true, ordering: .releasing)
        }
        defer { drain.cancel() }
        try await waitUntil("the closed agent's events to end") { eventsEnded.load(ordering: .acquiring) }
        let afterClose = attempts.load(ordering: .relaxed)
        try await waitUntil("the sender to send on a closed agent") { attempts.load(ordering: .relaxed) >= afterClose + 20 }
        stop.store(true, ordering: .relaxed)
        try await waitUntil("the sender thread to exit") { exited.load(ordering: .acquiring) }
        // Once closed, nothing goes out.
        #expect(payload.withUnsafeBytes { a.send($0) } == false)
        b.close()
    }

    /// GLib blocks a source that may not recurse around each dispatch, which costs two writes
    /// to the loop's wake-up eventfd and one more poll round per received packet
    /// (`UnblockedSocketSources`): every packet must come from a libnice socket source
    /// ("GSocket", dispatched directly, not deferred to an idle source) that may recurse.
    @Test func packetsComeFromSocketSourcesThatGLibDoesNotBlock() async throws {
        let loopA = NetworkLoop(name: "parley-t-loop-a")
        let loopB = NetworkLoop(name: "parley-t-loop-b")
        let a = try ICEAgent(configuration: ICEAgentConfiguration(role: .controlling, allowedInterfaces: ["lo"], ipv6: false), loop: loopA)
        let b = try ICEAgent(configuration: ICEAgentConfiguration(role: .controlled, allowedInterfaces: ["lo"], ipv6: false), loop: loopB)
        defer { a.close(); b.close() }
        let seen = Lock((packets: 0, fromSocketSource: 0, mayRecurse: 0))
        b.setReceiveHandler { _, _ in
            let source = g_main_current_source()
            let name = source.flatMap { g_source_get_name($0) }.map { String(cString: $0) }
            let mayRecurse = source.map { g_source_get_can_recurse($0) != 0 } ?? false
            seen.withLock {
                $0.packets += 1
                if name == "GSocket" { $0.fromSocketSource += 1 }
                if mayRecurse { $0.mayRecurse += 1 }
            }
        }
        try await Self.connect(a, b)

        let payload = [UInt8](repeating: 0x80, count: 100)
        for _ in 0..<50 { _ = payload.withUnsafeBytes { a.send($0) } }
        try await waitUntil("40 packets at B") { seen.withLock { $0.packets } >= 40 }
        let counts = seen.withLock { $0 }
        #expect(counts.fromSocketSource == counts.packets)
        #expect(counts.mayRecurse == counts.packets)
    }

    /// Exchanges credentials and candidates until both agents are connected.
    private static func connect(_ a: ICEAgent, _ b: ICEAgent) async throws {
        a.setRemoteCredentials(ufrag: b.localCredentials.ufrag, password: b.localCredentials.password)
        b.setRemoteCredentials(ufrag: a.localCredentials.ufrag, password: a.localCredentials.password)
        let connectedA = Task { try await Self.trickle(a, to: b) }
        let connectedB = Task { try await Self.trickle(b, to: a) }
        try await a.startGathering()
        try await b.startGathering()
        try await connectedA.value
        try await connectedB.value
    }

    /// Hands `from`'s candidates to `to` until `from` is connected.
    private static func trickle(_ from: ICEAgent, to: ICEAgent) async throws {
        for await event in from.events {
            switch event {
            case .localCandidate(let line): try to.addRemoteCandidate(line)
            case .gatheringComplete: to.remoteEndOfCandidates()
            case .state(.connected), .state(.completed): return
            case .failed(let error): throw error
            default: break
            }
        }
        Issue.record("the agent's events ended before it connected")
    }
}
