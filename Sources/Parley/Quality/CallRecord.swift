import Foundation

/// What a finished call leaves behind (docs/calls.md, "Call record"): its times, codec, traffic
/// both ways, loss, jitter, RTT, MOS, the warnings it raised, its recoveries and why it ended.
public struct CallRecord: Sendable, Equatable {
    public var timeline: CallTimeline
    public var codec: String?
    public var packetsSent: Int
    public var packetsReceived: Int
    public var bytesSent: Int
    public var bytesReceived: Int
    /// Lost of the stream we received, and of ours as the far end reported it.
    public var packetsLost: Int
    public var remotePacketsLost: Int?
    public var lossPercent: Double?
    public var jitterMeanMs: Double?
    public var jitterMaxMs: Double?
    public var rttMeanMs: Double?
    public var rttMaxMs: Double?
    public var mosMean: Double?
    public var mosMin: Double?
    public var warningsRaised: [QualityWarning]
    public var recoveries: Int
    public var termination: TerminationReason

    public init(timeline: CallTimeline, summary: QualitySummary, recoveries: Int, termination: TerminationReason) {
        self.timeline = timeline
        let last = summary.last
        codec = last?.codec
        packetsSent = last?.packetsSent ?? 0
        packetsReceived = last?.packetsReceived ?? 0
        bytesSent = last?.bytesSent ?? 0
        bytesReceived = last?.bytesReceived ?? 0
        packetsLost = last?.packetsLost ?? 0
        remotePacketsLost = last?.remotePacketsLost
        lossPercent = summary.lossPercent
        jitterMeanMs = summary.jitterMeanMs
        jitterMaxMs = summary.jitterMaxMs
        rttMeanMs = summary.rttMeanMs
        rttMaxMs = summary.rttMaxMs
        mosMean = summary.mosMean
        mosMin = summary.mosMin
        warningsRaised = summary.warningsRaised
        self.recoveries = recoveries
        self.termination = termination
    }

    public var duration: Duration? { timeline.duration }
}
