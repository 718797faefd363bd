import Foundation
import Parley

/// The `ended` event's `record` object (docs/calls.md, "Call record"): times in ISO 8601,
/// durations in seconds, rates in percent, delays in milliseconds.
struct CallRecordPayload: Encodable {
    let dialedAt: String?
    let ringingAt: String?
    let answeredAt: String?
    let endedAt: String?
    let durationSeconds: Double?
    let codec: String?
    let packetsSent: Int
    let packetsReceived: Int
    let bytesSent: Int
    let bytesReceived: Int
    let packetsLost: Int
    let remotePacketsLost: Int?
    let lossPercent: Double?
    let jitterMeanMs: Double?
    let jitterMaxMs: Double?
    let rttMeanMs: Double?
    let rttMaxMs: Double?
    let mosMean: Double?
    let mosMin: Double?
    let warnings: [String]
    let recoveries: Int
    /// Who held the call at some time (`local`, `remote`, `both`); absent when nobody did.
    let heldBy: String?
    let termination: ReasonPayload

    init(_ record: CallRecord) {
        let format = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        dialedAt = record.timeline.dialed.map { format.format($0) }
        ringingAt = record.timeline.ringing.map { format.format($0) }
        answeredAt = record.timeline.answered.map { format.format($0) }
        endedAt = record.timeline.ended.map { format.format($0) }
        durationSeconds = record.duration.map { CallPresenter.rounded($0.inSeconds) }
        codec = record.codec
        packetsSent = record.packetsSent
        packetsReceived = record.packetsReceived
        bytesSent = record.bytesSent
        bytesReceived = record.bytesReceived
        packetsLost = record.packetsLost
        remotePacketsLost = record.remotePacketsLost
        lossPercent = record.lossPercent.map(CallPresenter.rounded)
        jitterMeanMs = record.jitterMeanMs.map(CallPresenter.rounded)
        jitterMaxMs = record.jitterMaxMs.map(CallPresenter.rounded)
        rttMeanMs = record.rttMeanMs.map(CallPresenter.rounded)
        rttMaxMs = record.rttMaxMs.map(CallPresenter.rounded)
        mosMean = record.mosMean.map(CallPresenter.rounded)
        mosMin = record.mosMin.map(CallPresenter.rounded)
        warnings = record.warningsRaised.map(\.rawValue)
        recoveries = record.recoveries
        heldBy = record.timeline.heldBy
        termination = ReasonPayload(record.termination)
    }
}
