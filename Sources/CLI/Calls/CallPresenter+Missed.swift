import Foundation
import Parley

extension CallPresenter {
    /// An incoming call that ended before it was answered, not by us (`CallRecord.missed`): a
    /// `missed` event before its `ended`, as Exotel's SDK calls `onMissedCall`.
    func missed(_ call: String, from caller: String, record: CallRecord) {
        let ringing = record.timeline.dialed.flatMap { dialed in record.timeline.ended.map { $0.timeIntervalSince(dialed) } }
        if json {
            JSONEvents.emit("missed", MissedPayload(call: call, from: caller, ringSeconds: ringing.map(Self.rounded)))
        } else {
            note("call \(call.prefix(8)): missed call from \(caller.isEmpty ? "unknown" : caller)" + (ringing.map { String(format: " (offered %.1f s)", $0) } ?? ""))
        }
    }
}

/// `from`: the caller as the offer named it; `ringSeconds`: offered to ended.
struct MissedPayload: Encodable {
    let call: String
    let from: String
    let ringSeconds: Double?
}
