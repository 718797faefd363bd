import Foundation
import ICE
import Media
import Locking
import Synchronization

/// Where calls' packets and ticks run: K shards, each one network thread (a GLib main context
/// for the libnice agents it owns) and one media clock. A call is placed on the shard with the
/// fewest calls when its media leg is made and stays there: its packets and ticks take only its
/// own locks and its shard's, never one another shard's calls contend for. Still no thread per
/// call: a process has 2K of them at most, made when a shard gets its first call
/// (docs/architecture.md).
public final class MediaEngine: Sendable {
    /// One shard per core: what `MediaOptions` uses unless told otherwise.
    public static let shared = MediaEngine(shards: MediaEngine.defaultShardCount)

    /// One per core, or `PARLEY_THREADS` when set (how the test suites run with K = 1 and 2).
    public static var defaultShardCount: Int {
        if let text = ProcessInfo.processInfo.environment[threadsEnvironmentVariable], let count = Int(text), count >= 1 {
            return min(count, maximumShardCount)
        }
        return max(1, ProcessInfo.processInfo.activeProcessorCount)
    }

    public static let threadsEnvironmentVariable = "PARLEY_THREADS"
    /// More shards than this buys nothing but threads and memory.
    public static let maximumShardCount = 64

    public let shardCount: Int
    private let state: Placements

    /// `shards` is clamped to 1...64. The first shard of every engine uses the process's shared
    /// network loop and media clock (what a call used before engines), so one engine of one
    /// shard behaves exactly as the engine-less process did.
    ///
    /// `manualClocks`: no clock threads; whoever made the engine steps each shard's clock (a
    /// profiler stepping a fixed number of ticks, bench/callgrind-engine). Every shard then has
    /// its own clock, the first included.
    public init(shards: Int, manualClocks: Bool = false) {
        shardCount = min(max(1, shards), Self.maximumShardCount)
        state = Placements(shardCount: shardCount, manualClocks: manualClocks)
    }

    /// A place on the shard with the fewest calls (the lowest index on a tie) for a new call,
    /// held until `release` or until the place is dropped. Taken once per call, never per packet.
    package func place() -> ShardPlace {
        ShardPlace(state.place())
    }

    /// The shards that exist so far (made on first use), in index order.
    package var shards: [MediaShard] { state.existing() }

    /// Every shard clock's lateness summed: the process's figure for `--clock-interval`.
    package var lateness: MediaClock.Lateness {
        shards.reduce(into: MediaClock.Lateness()) { total, shard in
            let one = shard.clock.lateness
            total.sessionTicks += one.sessionTicks
            total.lateSessionTicks += one.lateSessionTicks
            total.frameLateSessionTicks += one.frameLateSessionTicks
            total.overruns += one.overruns
        }
    }

    /// The engine's placement table behind its lock.
    private final class Placements: Sendable {
        private let made: Lock<[MediaShard?]>
        private let manualClocks: Bool

        init(shardCount: Int, manualClocks: Bool) {
            made = Lock(Array(repeating: nil, count: shardCount))
            self.manualClocks = manualClocks
        }

        func place() -> MediaShard {
            made.withLock { made in
                var best = 0
                var fewest = Int.max
                for index in made.indices {
                    let calls = made[index]?.calls ?? 0
                    if calls < fewest {
                        best = index
                        fewest = calls
                    }
                }
                let shard = made[best] ?? MediaShard(index: best, of: made.count, manualClock: manualClocks)
                made[best] = shard
                shard.joined()
                return shard
            }
        }

        func existing() -> [MediaShard] {
            made.withLock { $0.compactMap { $0 } }
        }
    }
}

/// One shard of a `MediaEngine`: the network loop its calls' ICE agents live on and the clock
/// their media sessions tick on.
package final class MediaShard: Sendable {
    package let index: Int
    package let network: NetworkLoop
    package let clock: MediaClock
    private let callCount = Atomic<Int>(0)

    fileprivate init(index: Int, of shardCount: Int, manualClock: Bool) {
        self.index = index
        network = index == 0 ? .shared : NetworkLoop(name: "parley-net-\(index)")
        if manualClock {
            clock = MediaClock(name: "parley-clock-\(index)", manual: true)
        } else {
            // Spread over the tick (MediaClock's `phase`); shard 0's is the shared clock, at 0.
            clock = index == 0 ? .shared : MediaClock(name: "parley-clock-\(index)", phase: Double(index) / Double(shardCount))
            // Real-time like its clock (one step below), or the clock starves it (ClockPriority).
            network.perform { _ = ClockPriority.raiseNetworkThread() }
        }
    }

    /// Calls on this shard now.
    package var calls: Int { callCount.load(ordering: .relaxed) }

    fileprivate func joined() {
        callCount.add(1, ordering: .relaxed)
    }

    fileprivate func left() {
        callCount.subtract(1, ordering: .relaxed)
    }
}

/// One call's place on a shard: counted in the shard's calls until released (once) or dropped.
package final class ShardPlace: Sendable {
    package let shard: MediaShard
    private let released = Atomic<Bool>(false)

    fileprivate init(_ shard: MediaShard) {
        self.shard = shard
    }

    deinit { release() }

    package func release() {
        if !released.exchange(true, ordering: .relaxed) { shard.left() }
    }
}
