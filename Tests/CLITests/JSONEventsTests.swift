@testable import CLI
import Foundation
import Media
import Parley
import Testing

/// `JSONEvents.line` shares one encoder and writes the head itself; these lines must be the bytes
/// that a new `JSONEncoder` per line made before (docs/cli.md's `--json` contract).
@Suite struct JSONEventsTests {
    /// The line as it was built before the encoder was shared: an encoder and a date style per
    /// line, the head encoded as a dictionary.
    private static func referenceLine(_ event: String, _ payload: some Encodable, at date: Date) -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let head = ["event": event, "ts": Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)]
        guard let headData = try? encoder.encode(head), let headText = String(data: headData, encoding: .utf8),
            let bodyData = try? encoder.encode(payload), let bodyText = String(data: bodyData, encoding: .utf8),
            bodyText.hasPrefix("{")
        else { return nil }
        let fields = bodyText.dropFirst()
        return fields == "}" ? headText : String(headText.dropLast()) + "," + fields
    }

    private struct Empty: Encodable {}

    private static let audio: MediaStatistics = {
        let fields = #"""
            {"codec":"opus","payloadType":111,"packetsSent":2500,"bytesSent":200000,"packetsReceived":2490,"bytesReceived":199200,
             "packetsLost":10,"jitterMs":1.75,"rttMs":0.4,"remotePacketsLost":3,"concealedSamples":960,"totalSamplesPlayed":2400000,
             "jitterBufferDelayMs":40.5,"jitterBufferTargetMs":40,"latePackets":1,"duplicatePackets":0,"audioLevel":0.25,
             "localAudioLevel":0.5,"srtpProfile":"SRTP_AES128_CM_SHA1_80","srtpAuthenticationFailures":0,"srtpReplays":0,
             "dtmfReceived":2,"muted":false,"sendFailures":0,"preEncodedFramesSent":2500,"malformedPackets":0,"unknownDatagrams":0,
             "dtlsDatagramsRefused":0,"fecNegotiated":true}
            """#
        return try! JSONDecoder().decode(MediaStatistics.self, from: Data(fields.utf8))
    }()

    private static let dates = [
        Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_795_000_000.123), Date(timeIntervalSince1970: 1_795_000_000.9996),
        Date(),
    ]

    @Test func linesAreTheBytesAnEncoderPerLineMade() throws {
        for date in Self.dates {
            let lines: [(String, String?)] = [
                (JSONEvents.line("stats", StatsPayload(call: "c1", audio: Self.audio, candidatePair: nil, mos: 4.31, quality: "excellent", lossPercent: 0.4), at: date),
                 Self.referenceLine("stats", StatsPayload(call: "c1", audio: Self.audio, candidatePair: nil, mos: 4.31, quality: "excellent", lossPercent: 0.4), at: date)),
                (JSONEvents.line("stats", StatsPayload(call: "c2", audio: nil, candidatePair: nil), at: date),
                 Self.referenceLine("stats", StatsPayload(call: "c2", audio: nil, candidatePair: nil), at: date)),
                (JSONEvents.line("ended", EndedPayload(call: "c3", reason: TerminationReason(cause: "NORMAL_CLEARING", causeCode: 16)), at: date),
                 Self.referenceLine("ended", EndedPayload(call: "c3", reason: TerminationReason(cause: "NORMAL_CLEARING", causeCode: 16)), at: date)),
                (JSONEvents.line("warning-cleared", QualityWarningPayload(call: "c4", name: "high-jitter", value: 12.5), at: date),
                 Self.referenceLine("warning-cleared", QualityWarningPayload(call: "c4", name: "high-jitter", value: 12.5), at: date)),
                (JSONEvents.line("error", ErrorPayload(code: "a/b", message: "quote \" slash / back \\ tab \t line\n é ✓ \u{1}", line: 3), at: date),
                 Self.referenceLine("error", ErrorPayload(code: "a/b", message: "quote \" slash / back \\ tab \t line\n é ✓ \u{1}", line: 3), at: date)),
                (JSONEvents.line("ready", Empty(), at: date), Self.referenceLine("ready", Empty(), at: date)),
                // Event names are the program's own; one needing escapes is still escaped alike.
                (JSONEvents.line("odd \"name\" / \\", Empty(), at: date), Self.referenceLine("odd \"name\" / \\", Empty(), at: date)),
            ]
            for (line, reference) in lines {
                #expect(line == (try #require(reference)))
            }
        }
    }

    /// `fflush(nil)` after each line flushed every open stdio stream: the WAV recording of every
    /// call too, a write(2) per recorded call per event line (docs/performance.md, "Call setup").
    @Test func anEventLineFlushesNoOtherStream() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("json-events-\(UUID().uuidString).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorder = try WAVRecorder(path: path, sampleRate: 8000)
        let frame = [Int16](repeating: 1, count: 160)
        frame.withUnsafeBufferPointer { recorder.write(remote: $0, local: $0) }
        JSONEvents.emit("json-events-test", Empty())
        let sizeAfterEvent = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        // The header went out when it was written (its seek flushes); the frame waits in the buffer.
        #expect(sizeAfterEvent == 44)
        recorder.close()
        let sizeAfterClose = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(sizeAfterClose == 44 + 320)
    }

    @Test func aPayloadThatIsNotAnObjectIsAnErrorLine() {
        #expect(JSONEvents.line("odd", [1, 2], at: Date()) == #"{"event":"error","code":"cli.json","message":"could not encode the odd event as JSON"}"#)
    }
}
