import Foundation
import Locking
import Signaling

/// What a finished call leaves behind (docs/calls.md, "Call record"): its times, codec, traffic
/// both ways, loss, jitter, RTT, MOS, the warnings it raised, its recoveries and why it ended.
/// Encoded, it is the `record` of `parley --json`'s `ended` event, under the names that table lists.
public struct CallRecord: Sendable, Equatable, Encodable {
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
    /// Incoming calls only (nil for ours): true when the call ended before it was answered and
    /// not by us, the caller having given up or the server having ended it (Exotel's SDK calls
    /// it a missed call).
    public var missed: Bool?
    /// The rating a person gave the call (`parley call --rate`, `--feedback`), when one did.
    public var feedback: CallFeedback?

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

    /// The record of a call in `direction`, with `missed` set for an incoming one.
    public init(timeline: CallTimeline, summary: QualitySummary, recoveries: Int, termination: TerminationReason, direction: CallDirection) {
        self.init(timeline: timeline, summary: summary, recoveries: recoveries, termination: termination)
        if direction == .incoming { missed = timeline.answered == nil && termination.localStatus == nil }
    }

    public var duration: Duration? { timeline.duration }

    private enum CodingKeys: String, CodingKey {
        case dialedAt, ringingAt, answeredAt, endedAt, durationSeconds, heldBy
        case codec, packetsSent, packetsReceived, bytesSent, bytesReceived, packetsLost, remotePacketsLost
        case lossPercent, jitterMeanMs, jitterMaxMs, rttMeanMs, rttMaxMs, mosMean, mosMin
        case warningsRaised = "warnings", recoveries, termination, missed, feedback
    }

    /// Times in ISO 8601, durations in seconds, rates in percent, delays in milliseconds; the
    /// measured figures to two places.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let time = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        try container.encodeIfPresent(timeline.dialed.map(time.format), forKey: .dialedAt)
        try container.encodeIfPresent(timeline.ringing.map(time.format), forKey: .ringingAt)
        try container.encodeIfPresent(timeline.answered.map(time.format), forKey: .answeredAt)
        try container.encodeIfPresent(timeline.ended.map(time.format), forKey: .endedAt)
        try container.encodeIfPresent(duration.map { Self.hundredths($0.inSeconds) }, forKey: .durationSeconds)
        try container.encodeIfPresent(timeline.heldBy, forKey: .heldBy)
        try container.encodeIfPresent(codec, forKey: .codec)
        try container.encode(packetsSent, forKey: .packetsSent)
        try container.encode(packetsReceived, forKey: .packetsReceived)
        try container.encode(bytesSent, forKey: .bytesSent)
        try container.encode(bytesReceived, forKey: .bytesReceived)
        try container.encode(packetsLost, forKey: .packetsLost)
        try container.encodeIfPresent(remotePacketsLost, forKey: .remotePacketsLost)
        let figures: [(Double?, CodingKeys)] = [(lossPercent, .lossPercent), (jitterMeanMs, .jitterMeanMs), (jitterMaxMs, .jitterMaxMs),
                                                 (rttMeanMs, .rttMeanMs), (rttMaxMs, .rttMaxMs), (mosMean, .mosMean), (mosMin, .mosMin)]
        for (figure, key) in figures { try container.encodeIfPresent(figure.map(Self.hundredths), forKey: key) }
        try container.encode(warningsRaised, forKey: .warningsRaised)
        try container.encode(recoveries, forKey: .recoveries)
        try container.encode(termination, forKey: .termination)
        try container.encodeIfPresent(missed, forKey: .missed)
        try container.encodeIfPresent(feedback, forKey: .feedback)
    }

    private static func hundredths(_ value: Double) -> Double { (value * 100).rounded() / 100 }
}
