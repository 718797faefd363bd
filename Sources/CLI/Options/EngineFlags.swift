import ArgumentParser
import Parley

/// How many shards (network thread + media clock each) carry a process's calls: for the
/// commands that carry many calls at once (`answer`, `load`).
struct EngineFlags: ParsableArguments {
    @Option(help: "Shards that carry the calls: each one network thread and one media clock (default: one per core, at most 64).")
    var threads: Int?

    func validate() throws {
        if let threads, !(1...MediaEngine.maximumShardCount).contains(threads) {
            throw ValidationError("--threads must be between 1 and \(MediaEngine.maximumShardCount)")
        }
    }

    /// The process's engine: one per process, made here once.
    func engine() -> MediaEngine {
        threads.map { MediaEngine(shards: $0) } ?? .shared
    }
}
