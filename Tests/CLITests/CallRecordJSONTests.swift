@testable import CLI
import Foundation
@testable import Parley
import Testing

/// The `ended` event's `record` (docs/calls.md, "Call record"): the field names the table lists,
/// times in ISO 8601, figures rounded to two places, and the line byte for byte as `--json`
/// writes it.
@Suite struct CallRecordJSONTests {
    private static let dialed = Date(timeIntervalSince1970: 1_795_392_157.5)

    private static var record: CallRecord {
        var timeline = CallTimeline()
        timeline.note(.dialing, direction: .outgoing, at: dialed)
        timeline.note(.ringing, direction: .outgoing, at: dialed.addingTimeInterval(0.25))
        timeline.note(.active, direction: .outgoing, at: dialed.addingTimeInterval(0.5))
        timeline.note(.held, direction: .outgoing, at: dialed.addingTimeInterval(2))
        timeline.note(.done(TerminationReason()), direction: .outgoing, at: dialed.addingTimeInterval(11.0712))
        var record = CallRecord(timeline: timeline, summary: QualitySummary(), recoveries: 1,
                                termination: TerminationReason(cause: "NORMAL_CLEARING", causeCode: 16, localStatus: .endedByLocalUser))
        record.codec = "PCMU"
        (record.packetsSent, record.packetsReceived, record.bytesSent, record.bytesReceived) = (516, 504, 82_560, 80_640)
        (record.packetsLost, record.remotePacketsLost, record.lossPercent) = (12, 13, 100.0 * 12 / 516)
        (record.jitterMeanMs, record.jitterMaxMs, record.rttMeanMs, record.rttMaxMs) = (1.1449, 5.6251, 5.1, 5.104)
        (record.mosMean, record.mosMin) = (4.0149, 3.2551)
        record.warningsRaised = [.highPacketLoss, .lowMOS, .highPacketLoss]
        record.missed = false
        record.feedback = try? CallFeedback(rating: 4, issue: .echo)
        return record
    }

    /// Missed: incoming, never answered, and not ended by this side (as Exotel's onMissedCall reports it).
    @Test func anIncomingCallTheCallerGaveUpOnIsMissed() {
        func record(_ direction: CallDirection, answered: Bool, local: TerminationReason.LocalStatus?) -> CallRecord {
            var timeline = CallTimeline()
            timeline.note(.ringing, direction: direction, at: Self.dialed)
            if answered { timeline.note(.active, direction: direction, at: Self.dialed.addingTimeInterval(1)) }
            let reason = TerminationReason(cause: "ORIGINATOR_CANCEL", causeCode: 487, localStatus: local)
            timeline.note(.done(reason), direction: direction, at: Self.dialed.addingTimeInterval(3))
            return CallRecord(timeline: timeline, summary: QualitySummary(), recoveries: 0, termination: reason, direction: direction)
        }
        #expect(record(.incoming, answered: false, local: nil).missed == true)
        #expect(record(.incoming, answered: true, local: nil).missed == false)
        #expect(record(.incoming, answered: false, local: .rejected).missed == false)
        #expect(record(.incoming, answered: false, local: .endedByLocalUser).missed == false)
        #expect(record(.outgoing, answered: false, local: nil).missed == nil)
        let missed = JSONEvents.line("missed", MissedPayload(call: "c1", from: "alice", ringSeconds: 3), at: Self.dialed)
        #expect(missed == #"{"event":"missed","ts":"2026-11-23T00:02:37.500Z","call":"c1","from":"alice","ringSeconds":3}"#)
    }

    private static func fields(of line: String) throws -> [String: Any] {
        let event = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        return try #require(event["record"] as? [String: Any])
    }

    @Test func theRecordHasTheDocumentedFieldsAndRoundedFigures() throws {
        let line = JSONEvents.line("ended", EndedPayload(call: "c1", reason: Self.record.termination, record: Self.record),
                                   at: Self.dialed)
        let record = try Self.fields(of: line)
        // Every field of the table in docs/calls.md, and no other.
        let calls = try String(contentsOf: CallControlsTests.root.appendingPathComponent("docs/calls.md"), encoding: .utf8)
        let table = try #require(calls.components(separatedBy: "### Call record").dropFirst().first?.components(separatedBy: "```json").first)
        let documented = Set(table.split(separator: "\n").filter { $0.hasPrefix("| `") }
            .flatMap { $0.split(separator: "|")[0].matches(of: /`([A-Za-z]+)`/).map { String($0.output.1) } })
        #expect(Set(record.keys) == documented)
        #expect(record["dialedAt"] as? String == "2026-11-23T00:02:37.500Z")
        #expect(record["durationSeconds"] as? Double == 10.57 && record["lossPercent"] as? Double == 2.33)
        #expect(record["jitterMeanMs"] as? Double == 1.14 && record["mosMin"] as? Double == 3.26 && record["rttMaxMs"] as? Double == 5.1)
        #expect(record["warnings"] as? [String] == ["high-packet-loss", "low-mos", "high-packet-loss"])
        #expect(record["heldBy"] as? String == "local")
        let termination = try #require(record["termination"] as? [String: Any])
        #expect(termination["localStatus"] as? String == "ended-by-local-user" && termination["normal"] as? Bool == true)
        #expect(line == Self.golden)
    }

    @Test func aLoadCallsEndedEventCarriesTheSameReason() throws {
        let result = LoadCallResult(index: 1, callID: "c1", answered: true, held: true, failure: nil, setupMs: 20, firstAudioMs: 40,
                                    reason: Self.record.termination, audio: nil)
        let load = JSONEvents.line("ended", LoadEndedPayload(result), at: Self.dialed)
        let call = JSONEvents.line("ended", EndedPayload(call: "c1", reason: Self.record.termination), at: Self.dialed)
        let reason = #/"reason":\{[^}]*\}/#
        #expect(try #require(load.firstMatch(of: reason)).output == (try #require(call.firstMatch(of: reason)).output))
    }

    /// The line as `parley call --json` wrote it before the record became one type (issue 32).
    private static let golden = #"{"event":"ended","ts":"2026-11-23T00:02:37.500Z","call":"c1","reason":{"cause":"NORMAL_CLEARING","causeCode":16,"localStatus":"ended-by-local-user","localStatusCode":9901,"normal":true},"record":{"answeredAt":"2026-11-23T00:02:38.000Z","bytesReceived":80640,"bytesSent":82560,"codec":"PCMU","dialedAt":"2026-11-23T00:02:37.500Z","durationSeconds":10.57,"endedAt":"2026-11-23T00:02:48.571Z","feedback":{"issue":"echo","rating":4},"heldBy":"local","jitterMaxMs":5.63,"jitterMeanMs":1.14,"lossPercent":2.33,"missed":false,"mosMean":4.01,"mosMin":3.26,"packetsLost":12,"packetsReceived":504,"packetsSent":516,"recoveries":1,"remotePacketsLost":13,"ringingAt":"2026-11-23T00:02:37.750Z","rttMaxMs":5.1,"rttMeanMs":5.1,"termination":{"cause":"NORMAL_CLEARING","causeCode":16,"localStatus":"ended-by-local-user","localStatusCode":9901,"normal":true},"warnings":["high-packet-loss","low-mos","high-packet-loss"]}}"#
}
