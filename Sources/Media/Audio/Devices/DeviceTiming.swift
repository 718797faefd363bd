import Glibc

/// Where device audio stands in time (docs/audio.md, "Latency"). The sound server's thread notes,
/// each time it moves audio, when the newest sample it handed over was captured (record) or when
/// the newest sample it took will be played (playback), on the monotonic clock. The media clock
/// adds what waits on the ring, so a delay read at a tick includes the time since the server's
/// thread last ran, which a latency sampled on that thread alone would miss.
enum DeviceTiming {
    static func nowMicroseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now.tv_sec * 1_000_000 + now.tv_nsec / 1000
    }

    /// The age at `now` of the oldest of `queuedSamples` captured samples, the newest of which
    /// was captured at `newestCaptured`: the time since then plus the queue's own length.
    static func oldestCaptureAge(now: Int, newestCaptured: Int, queuedSamples: Int, sampleRate: Int) -> Int {
        now - newestCaptured + queuedSamples * 1_000_000 / sampleRate
    }

    /// How long a sample put behind `queuedSamples` at `now` waits before it is heard, when the
    /// newest sample the server took will be played at `newestPlays`.
    static func playbackWait(now: Int, newestPlays: Int, queuedSamples: Int, sampleRate: Int) -> Int {
        max(0, newestPlays - now) + queuedSamples * 1_000_000 / sampleRate
    }
}
