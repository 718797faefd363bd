import Foundation
import Media
import Parley
import Testing

/// The monitor replayed over made-up statistics histories, one sample a second.
@Suite struct CallQualityMonitorTests {
    private static let active = CallQualityMonitor.Activity(expectsAudio: true, sendsSource: true)

    /// A snapshot as the engine would give it after `second` seconds of 50 packets a second.
    private static func audio(second: Int, lost: Int = 0, jitterMs: Double = 2, rttMs: Double? = 40, level: Double? = nil,
                              received: Int? = nil, codec: String = "PCMU") throws -> MediaStatistics {
        var fields: [String: Any] = [
            "codec": codec, "payloadType": 0, "packetsSent": 50 * second, "bytesSent": 8000 * second,
            "packetsReceived": received ?? 50 * second - lost, "bytesReceived": 8000 * second, "packetsLost": lost,
            "jitterMs": jitterMs, "concealedSamples": 0, "totalSamplesPlayed": 8000 * second,
            "jitterBufferDelayMs": 40, "jitterBufferTargetMs": 40, "latePackets": 0, "duplicatePackets": 0,
            "audioLevel": 0.2, "localAudioLevel": level ?? 0.1 + 0.01 * Double(second % 7), "srtpAuthenticationFailures": 0,
            "srtpReplays": 0, "dtmfReceived": 0, "muted": false, "sendFailures": 0, "preEncodedFramesSent": 0, "fecNegotiated": false,
            "malformedPackets": 0, "unknownDatagrams": 0, "dtlsDatagramsRefused": 0,
        ]
        if let rttMs { fields["rttMs"] = rttMs }
        let data = try JSONSerialization.data(withJSONObject: fields)
        return try JSONDecoder().decode(MediaStatistics.self, from: data)
    }

    @Test func aCleanCallRatesExcellentAndWarnsOfNothing() throws {
        var monitor = CallQualityMonitor()
        var changes: [QualityWarningChange] = []
        for second in 1...20 {
            let update = monitor.update(try Self.audio(second: second), at: .seconds(second), activity: Self.active)
            changes += update.changes
            #expect(update.quality == .excellent)
        }
        #expect(changes.isEmpty)
        // One-way delay 20 + 40 = 60 ms: R = 93.2 − 1.44, MOS 4.382
        #expect(abs((monitor.summary.mosMin ?? 0) - EModel.mos(rating: 91.76)) < 1e-9)
    }

    @Test func lossOverFiveSecondsRaisesThenClearsWithHysteresis() throws {
        var monitor = CallQualityMonitor()
        var lost = 0
        var history: [(Int, QualityWarningChange)] = []
        for second in 1...30 {
            // 5 of 50 packets lost a second from 5 s to 10 s, then none.
            if (5...10).contains(second) { lost += 5 }
            let update = monitor.update(try Self.audio(second: second, lost: lost), at: .seconds(second), activity: Self.active)
            history += update.changes.map { (second, $0) }
        }
        let loss = history.filter { $0.1.warning == .highPacketLoss }
        try #require(loss.count == 2)
        // At 5 s the window holds 5 lost of 200 (2.5 %); at 6 s, 10 of 250 (4 %).
        #expect(loss[0].1.raised && loss[0].0 == 6 && loss[0].1.value == 4)
        // Cleared once the 5 s window has no loss left: 15 s.
        #expect(!loss[1].1.raised && loss[1].0 == 15)
        #expect(monitor.summary.warningsRaised.contains(.highPacketLoss))
        // 10 % loss on G.711: Ie-eff = 950 / 35.1 lowers MOS well under 3.5.
        #expect(history.contains { $0.1.warning == .lowMOS && $0.1.raised })
        #expect(history.contains { $0.1.warning == .lowMOS && !$0.1.raised })
        #expect((monitor.summary.mosMin ?? 5) < 3.5)
    }

    @Test func jitterAndRTTHoverBetweenThresholdsWithoutFlapping() throws {
        var monitor = CallQualityMonitor()
        let jitters: [Double] = [10, 35, 25, 31, 22, 19, 25]
        let rtts: [Double] = [100, 450, 350, 420, 310, 290, 350]
        var raised: [QualityWarning] = []
        var cleared: [(QualityWarning, Int)] = []
        for (index, (jitter, rtt)) in zip(jitters, rtts).enumerated() {
            for change in monitor.update(try Self.audio(second: index + 1, jitterMs: jitter, rttMs: rtt), at: .seconds(index + 1), activity: Self.active).changes {
                if change.raised { raised.append(change.warning) } else { cleared.append((change.warning, index)) }
            }
        }
        #expect(raised.filter { $0 == .highJitter }.count == 1)
        #expect(raised.filter { $0 == .highRTT }.count == 1)
        #expect(cleared.contains { $0 == (.highJitter, 5) })
        #expect(cleared.contains { $0 == (.highRTT, 5) })
    }

    @Test func aSteadyInputLevelIsADeadMicrophone() throws {
        var monitor = CallQualityMonitor()
        var changes: [(Int, QualityWarningChange)] = []
        for second in 1...16 {
            let level = second <= 12 ? 0.0 : 0.05 * Double(second)
            changes += monitor.update(try Self.audio(second: second, level: level), at: .seconds(second), activity: Self.active).changes.map { (second, $0) }
        }
        let dead = changes.filter { $0.1.warning == .constantAudioInputLevel }
        try #require(dead.count == 2)
        #expect(dead[0].1.raised && dead[0].0 == 12)
        #expect(!dead[1].1.raised && dead[1].0 == 13)
    }

    @Test func silenceWhileActiveIsWarnedButNotWhileHeld() throws {
        var monitor = CallQualityMonitor()
        var changes: [(Int, QualityWarningChange)] = []
        let held = CallQualityMonitor.Activity(expectsAudio: false, sendsSource: false)
        for second in 1...22 {
            // Packets stop after 2 s; the call is held from 10 s to 12 s; packets return at 21 s.
            let received = second < 3 ? 50 * second : (second < 21 ? 100 : 100 + 50 * (second - 20))
            let activity = (10...12).contains(second) ? held : Self.active
            changes += monitor.update(try Self.audio(second: second, received: received), at: .seconds(second), activity: activity).changes
                .filter { $0.warning == .noAudioReceived }.map { (second, $0) }
        }
        try #require(changes.count == 4)
        // 6 s without a packet at 8 s; the hold clears it; counted again from 13 s.
        #expect(changes[0].1.raised && changes[0].0 == 8 && changes[0].1.value == 6)
        #expect(!changes[1].1.raised && changes[1].0 == 10)
        #expect(changes[2].1.raised && changes[2].0 == 19)
        #expect(!changes[3].1.raised && changes[3].0 == 21)
    }

    @Test func theRecordCarriesTheSummaryOfTheSamples() throws {
        var monitor = CallQualityMonitor()
        // Jitter 2, 4 and 40 ms; RTT 40, 40 and 100 ms; no loss until 20 of 170 packets at 3 s.
        _ = monitor.update(try Self.audio(second: 1, jitterMs: 2), at: .seconds(1), activity: Self.active)
        _ = monitor.update(try Self.audio(second: 2, jitterMs: 4), at: .seconds(2), activity: Self.active)
        _ = monitor.update(try Self.audio(second: 3, lost: 20, jitterMs: 40, rttMs: 100), at: .seconds(3), activity: Self.active)
        let record = CallRecord(timeline: CallTimeline(), summary: monitor.summary, recoveries: 2, termination: TerminationReason(cause: "NORMAL_CLEARING"))
        #expect(record.codec == "PCMU" && record.packetsSent == 150 && record.packetsReceived == 130 && record.packetsLost == 20)
        #expect(abs((record.jitterMeanMs ?? 0) - 46.0 / 3) < 1e-9 && record.jitterMaxMs == 40)
        #expect(record.rttMeanMs == 60 && record.rttMaxMs == 100)
        // 20 of 150 packets: 13.33 %.
        #expect(abs((record.lossPercent ?? 0) - 100.0 * 20 / 150) < 1e-9)
        // The worst sample is the last: since the window's base (1 s: 50 received) 20 lost and 80
        // received, 20 %; one-way delay 100 / 2 + 40 ms of jitter buffer.
        let worst = EModel(codec: .g711WithPLC).mos(lossPercent: 20, oneWayDelayMs: 50 + 40)
        #expect(abs((record.mosMin ?? 0) - worst) < 1e-9)
        #expect(record.warningsRaised == [.highJitter, .highPacketLoss, .lowMOS])
        #expect(record.recoveries == 2 && record.duration == nil)
    }
}
