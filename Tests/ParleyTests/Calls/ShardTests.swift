import Foundation
import ICE
import Media
@testable import Parley
import TestSupport
import Testing
import Locking

/// The media engine's shards with real legs on loopback (libnice, DTLS, Opus): calls spread over
/// the shards, each call's packets arrive on its shard's network thread and its ticks run on its
/// shard's clock, and ending calls on one shard leaves the others' audio whole.
@Suite(.leakChecked, .serialized) struct ShardTests {
    @Test func placementFillsTheEmptiestShardFirst() {
        let engine = MediaEngine(shards: 3)
        let places = (0..<7).map { _ in engine.place() }
        #expect(places.map(\.shard.index) == [0, 1, 2, 0, 1, 2, 0])
        #expect(engine.shards.map(\.calls) == [3, 2, 2])
        places[1].release()
        places[1].release()
        #expect(engine.shards.map(\.calls) == [3, 1, 2])
        // The freed place is taken first.
        let next = engine.place()
        #expect(next.shard.index == 1)
        #expect(MediaEngine(shards: 0).shardCount == 1)
        #expect(MediaEngine(shards: 1000).shardCount == MediaEngine.maximumShardCount)
    }

    /// Left at normal priority beside its real-time clock, a network thread starves whenever the
    /// machine is busy (docs/performance.md, "Why the hold fell behind the ramp"). Where the
    /// process may use real-time scheduling (root, as `make test` runs), it runs one step below.
    @Test(.needsHostRoot) func eachShardsNetworkThreadRunsRealTimeOneStepBelowItsClock() async throws {
        try #require(getenv(ClockPriority.environmentVariable) == nil)
        let engine = MediaEngine(shards: 2)
        let places = [engine.place(), engine.place()]
        defer { places.forEach { $0.release() } }
        for place in places {
            let (policy, priority) = await withCheckedContinuation { continuation in
                place.shard.network.perform {
                    var parameters = sched_param()
                    var policy: Int32 = 0
                    pthread_getschedparam(pthread_self(), &policy, &parameters)
                    continuation.resume(returning: (policy, parameters.sched_priority))
                }
            }
            #expect(policy == SCHED_FIFO)
            #expect(priority == ClockPriority.networkRealtimePriority)
        }
    }

    @Test(arguments: [1, 2]) func callsStayOnTheirShardAndEndingOneLeavesTheOthersWhole(shards: Int) async throws {
        let engine = MediaEngine(shards: shards)
        var options = InteropMedia.options(interface: "lo", codec: "opus", tone: 440, record: nil, vanilla: true)
        options.engine = engine
        let callCount = 2 * shards
        var calls: [(caller: MediaLeg, callee: MediaLeg)] = []
        for _ in 0..<callCount {
            calls.append((try MediaLeg(role: .controlling, options: options, logger: InteropMedia.logger),
                          try MediaLeg(role: .controlled, options: options, logger: InteropMedia.logger)))
        }
        let legs = calls.flatMap { [$0.caller, $0.callee] }
        afterTest { for leg in legs { await leg.stop() } }
        // Every shard carries the same number of legs (placement: fewest first).
        #expect(engine.shards.count == shards)
        #expect(engine.shards.map(\.calls) == Array(repeating: legs.count / shards, count: shards))

        var probes: [LegProbe] = []
        for (caller, callee) in calls {
            let callerEvents = EventRecorder(caller.events)
            let calleeEvents = EventRecorder(callee.events)
            try await caller.applyAnswer(try await callee.answer(try await caller.makeOffer()))
            _ = try await callerEvents.next("caller secured") { if case .secured = $0 { true } else { false } }
            _ = try await calleeEvents.next("callee secured") { if case .secured = $0 { true } else { false } }
            for leg in [caller, callee] { probes.append(try await LegProbe(leg)) }
        }

        // Audio flows on every leg, every packet and tick on the leg's own shard.
        for probe in probes {
            try await waitUntil("leg on shard \(probe.shard.index) hears the tone") { probe.audibleFrames > 25 }
        }
        for probe in probes {
            #expect(probe.packets > 0)
            #expect(probe.packetsOffShard == 0, "packets off shard \(probe.shard.index)")
            #expect(probe.ticksOffShard == 0, "ticks off shard \(probe.shard.index)")
        }

        // End the first call (its legs on shards 0 and 1, or both on 0): the others play on.
        let (ended, kept) = (probes.prefix(2), probes.dropFirst(2))
        for probe in ended { await probe.leg.stop() }
        #expect(engine.shards.map(\.calls).reduce(0, +) == legs.count - 2)
        var before: [(MediaStatistics, Int)] = []
        for probe in kept { before.append((try #require(await probe.leg.statistics().audio), probe.audibleFrames)) }
        for (probe, (statistics, audible)) in zip(kept, before) {
            // A second's worth more on each leg (50 packets, 50 frames), waited for with a bound
            // rather than slept for, so a busy 2-core host only makes the wait longer.
            try await waitUntil("leg on shard \(probe.shard.index) plays on after the first call ended", within: 10) {
                guard let now = await probe.leg.statistics().audio else { return false }
                return now.packetsReceived - statistics.packetsReceived >= 50 && probe.audibleFrames - audible >= 50
            }
            let after = try #require(await probe.leg.statistics().audio)
            let received = after.packetsReceived - statistics.packetsReceived
            // At most one frame in ten concealed (960 samples a frame at 48 kHz) while the others ended.
            #expect(after.concealedSamples - statistics.concealedSamples <= received * 960 / 10, "concealed on shard \(probe.shard.index)")
            #expect(probe.packetsOffShard == 0)
            #expect(probe.ticksOffShard == 0)
        }
    }
}

/// Watches one leg from inside: its packets as the ICE agent delivers them (then handed to the
/// session as MediaLeg does) and its ticks as its sink sees them.
private final class LegProbe: @unchecked Sendable {
    let leg: MediaLeg
    let shard: MediaShard
    private let counts = Lock((packets: 0, packetsOffShard: 0, ticksOffShard: 0, audibleFrames: 0))

    init(_ leg: MediaLeg) async throws {
        self.leg = leg
        shard = leg.shard
        let session = try #require(await leg.session)
        let taps = try #require(await leg.audioTaps())
        let network = shard.network
        let agent = try #require(await leg.agent)
        agent.setReceiveHandler { [weak self, weak session] bytes, _ in
            self?.count { $0.packets += 1; if !network.isCurrentThread { $0.packetsOffShard += 1 } }
            session?.receive(bytes)
        }
        taps.sink.startRecording(TickSink(probe: self))
    }

    var packets: Int { counts.withLock { $0.packets } }
    var packetsOffShard: Int { counts.withLock { $0.packetsOffShard } }
    var ticksOffShard: Int { counts.withLock { $0.ticksOffShard } }
    var audibleFrames: Int { counts.withLock { $0.audibleFrames } }

    fileprivate func count(_ change: (inout (packets: Int, packetsOffShard: Int, ticksOffShard: Int, audibleFrames: Int)) -> Void) {
        counts.withLock { change(&$0) }
    }
}

private final class TickSink: AudioSink, @unchecked Sendable {
    private weak var probe: LegProbe?
    private let clock: MediaClock

    init(probe: LegProbe) {
        self.probe = probe
        clock = probe.shard.clock
    }

    func write(remote: UnsafeBufferPointer<Int16>, local: UnsafeBufferPointer<Int16>) {
        let onShard = clock.isCurrentThread
        let audible = remote.contains { abs(Int($0)) > 1000 }
        probe?.count {
            if !onShard { $0.ticksOffShard += 1 }
            if audible { $0.audibleFrames += 1 }
        }
    }

    func close() {}
}
