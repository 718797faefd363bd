import Locking
import Parley

/// With `--metrics`: a load call's RTP counters into the metrics once a second while it is up
/// (a load call has no quality watch), so that a scrape during a long run sees the calls that are
/// up, not only those that ended (docs/metrics.md). Sampled by one `PeriodicSampler` pass for
/// every call of the run, not a task per call.
final class LoadTrafficWatch: PeriodicallySampled {
    static let sampler = PeriodicSampler(period: .seconds(1))

    private let call: Call
    private struct State {
        var traffic = CallMetrics.Traffic()
        var finished = false
    }
    private let state = Lock(State())

    init(call: Call) {
        self.call = call
    }

    func sampleOnce() async -> Bool {
        let audio = await call.statistics().audio
        return state.withLock { state in
            // A sample that comes back after `finish` is dropped: the last figures count once.
            guard !state.finished else { return false }
            if let audio { state.traffic.add(audio) }
            return true
        }
    }

    /// No more samples; adds what grew since the last one from the call's final figures.
    func finish(_ audio: MediaStatistics?) {
        state.withLock { state in
            state.finished = true
            if let audio { state.traffic.add(audio) }
        }
        Self.sampler.remove(self)
    }
}
