import Media

/// The running quality figures of one call, for its record: the last snapshot's counters and
/// the mean and extremes of the per-tick measures.
public struct QualitySummary: Sendable, Equatable {
    public private(set) var last: MediaStatistics?
    public private(set) var jitterMeanMs: Double?
    public private(set) var jitterMaxMs: Double?
    public private(set) var rttMeanMs: Double?
    public private(set) var rttMaxMs: Double?
    public private(set) var mosMean: Double?
    public private(set) var mosMin: Double?
    public internal(set) var warningsRaised: [QualityWarning] = []
    private var jitterSamples = 0
    private var rttSamples = 0
    private var mosSamples = 0

    public init() {}

    mutating func add(_ audio: MediaStatistics, mos: Double?) {
        last = audio
        if audio.packetsReceived > 0 {
            jitterSamples += 1
            jitterMeanMs = Self.mean(jitterMeanMs, audio.jitterMs, count: jitterSamples)
            jitterMaxMs = max(jitterMaxMs ?? 0, audio.jitterMs)
        }
        if let rtt = audio.rttMs {
            rttSamples += 1
            rttMeanMs = Self.mean(rttMeanMs, rtt, count: rttSamples)
            rttMaxMs = max(rttMaxMs ?? 0, rtt)
        }
        if let mos {
            mosSamples += 1
            mosMean = Self.mean(mosMean, mos, count: mosSamples)
            mosMin = min(mosMin ?? mos, mos)
        }
    }

    /// Loss of the stream we received over the whole call, percent.
    public var lossPercent: Double? {
        guard let last, last.packetsLost + last.packetsReceived > 0 else { return nil }
        return 100 * Double(last.packetsLost) / Double(last.packetsLost + last.packetsReceived)
    }

    private static func mean(_ previous: Double?, _ value: Double, count: Int) -> Double {
        (previous ?? 0) + (value - (previous ?? 0)) / Double(count)
    }
}
