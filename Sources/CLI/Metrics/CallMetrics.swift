import CoreMetrics
import Drivers
import Parley
import Prometheus

/// Every metric the CLI reports (docs/metrics.md), through swift-metrics: without `--metrics`
/// nothing is bootstrapped and each call below does nothing. Updated at call events and stats
/// ticks, never per packet.
enum CallMetrics {
    static func factory(registry: PrometheusCollectorRegistry, dialect: String) -> DescribedMetricsFactory {
        let setupBuckets: [Duration] = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30].map { .milliseconds(Int($0 * 1000)) }
        return DescribedMetricsFactory(
            registry: registry,
            constantLabels: [("dialect", dialect)],
            durationBuckets: ["parley_call_setup_seconds": setupBuckets, "parley_call_first_audio_seconds": setupBuckets],
            valueBuckets: [
                "parley_call_mos": [1, 2, 2.5, 3, 3.5, 3.6, 4, 4.03, 4.2, 4.34, 4.5],
                "parley_call_loss_percent": [0, 0.5, 1, 2, 3, 5, 10, 20, 50],
                "parley_call_jitter_ms": [1, 2, 5, 10, 20, 30, 50, 100, 250],
            ])
    }

    // MARK: Calls

    static func callStarted(_ direction: CallDirection) {
        Meter(label: "parley_calls_active", dimensions: [("direction", direction.rawValue)]).increment()
    }

    /// From the offer (incoming) or the dial (outgoing) until the call is active.
    static func setup(_ direction: CallDirection, _ duration: Duration) {
        Timer(label: "parley_call_setup_seconds", dimensions: [("direction", direction.rawValue)]).recordNanoseconds(nanoseconds(duration))
    }

    /// From the offer or the dial until the first RTP packet from the far end.
    static func firstAudio(_ direction: CallDirection, _ duration: Duration) {
        Timer(label: "parley_call_first_audio_seconds", dimensions: [("direction", direction.rawValue)]).recordNanoseconds(nanoseconds(duration))
    }

    /// A bot's verdict on a call it ran (docs/bots.md, "Verdicts").
    static func botVerdict(_ verdict: BotVerdict) {
        Counter(label: "parley_bot_verdicts_total", dimensions: [("verdict", verdict.name)]).increment()
    }

    static func recovered(_ path: RecoveryPath) {
        Counter(label: "parley_reconnections_total", dimensions: [("path", path.rawValue)]).increment()
    }

    /// The call is over: the active gauge drops, the total counts its reason, and its quality
    /// lands in the histograms.
    static func callEnded(_ direction: CallDirection, reason: TerminationReason, mos: Double?, lossPercent: Double?, jitterMs: Double?) {
        let dimension = ("direction", direction.rawValue)
        Meter(label: "parley_calls_active", dimensions: [dimension]).decrement()
        Counter(label: "parley_calls_total", dimensions: [dimension, ("reason", reasonLabel(reason))]).increment()
        if let mos { Recorder(label: "parley_call_mos").record(mos) }
        if let lossPercent { Recorder(label: "parley_call_loss_percent").record(lossPercent) }
        if let jitterMs { Recorder(label: "parley_call_jitter_ms").record(jitterMs) }
    }

    /// An outgoing call that failed before it existed (the dial itself was refused).
    static func dialFailed(_ code: String) {
        Counter(label: "parley_calls_total", dimensions: [("direction", CallDirection.outgoing.rawValue), ("reason", code)]).increment()
    }

    /// An incoming call refused as busy without being answered.
    static func refused() {
        Counter(label: "parley_calls_total", dimensions: [("direction", CallDirection.incoming.rawValue), ("reason", "rejected")]).increment()
    }

    /// The client's own ending when it decided one, else the server's cause when it is a known
    /// cause name, else `other`: the far end must not grow the label set at will.
    static func reasonLabel(_ reason: TerminationReason) -> String {
        reason.localStatus?.rawValue ?? reason.cause.map(HangupCause.knownName) ?? "unknown"
    }

    // MARK: Traffic

    /// The RTP counters of one call, to add only what grew since the last look.
    struct Traffic {
        private var counted = (packetsSent: 0, packetsReceived: 0, bytesSent: 0, bytesReceived: 0, lost: 0)

        mutating func add(_ audio: MediaStatistics) {
            CallMetrics.add("parley_rtp_packets_total", "sent", audio.packetsSent - counted.packetsSent)
            CallMetrics.add("parley_rtp_packets_total", "received", audio.packetsReceived - counted.packetsReceived)
            CallMetrics.add("parley_rtp_bytes_total", "sent", audio.bytesSent - counted.bytesSent)
            CallMetrics.add("parley_rtp_bytes_total", "received", audio.bytesReceived - counted.bytesReceived)
            let lost = audio.packetsLost - counted.lost
            if lost > 0 { Counter(label: "parley_rtp_packets_lost_total").increment(by: lost) }
            counted = (audio.packetsSent, audio.packetsReceived, audio.bytesSent, audio.bytesReceived, max(counted.lost, audio.packetsLost))
        }
    }

    private static func add(_ label: String, _ direction: String, _ amount: Int) {
        guard amount > 0 else { return }
        Counter(label: label, dimensions: [("direction", direction)]).increment(by: amount)
    }

    // MARK: Media clocks

    /// Adds the engine's clock figures once a second until cancelled: steps taken, steps that
    /// finished late (> 10 ms) or a whole frame late, and overruns.
    static func watchClock(of engine: MediaEngine) async {
        var counted = engine.lateness
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            let now = engine.lateness
            Counter(label: "parley_media_clock_steps_total").increment(by: max(0, now.sessionTicks - counted.sessionTicks))
            Counter(label: "parley_media_clock_late_steps_total", dimensions: [("late", "10ms")]).increment(by: max(0, now.lateSessionTicks - counted.lateSessionTicks))
            Counter(label: "parley_media_clock_late_steps_total", dimensions: [("late", "frame")])
                .increment(by: max(0, now.frameLateSessionTicks - counted.frameLateSessionTicks))
            Counter(label: "parley_media_clock_overruns_total").increment(by: max(0, now.overruns - counted.overruns))
            counted = now
        }
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }
}
