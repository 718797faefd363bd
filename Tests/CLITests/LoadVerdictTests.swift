@testable import CLI
import Drivers
import Foundation
import Media
import Parley
import Testing

/// `parley load`'s thresholds and final line, and the reports for CI (docs/cli.md).
@Suite struct LoadVerdictTests {
    private static func audio(received: Int, lost: Int) throws -> MediaStatistics {
        let fields = """
            {"codec":"opus","payloadType":111,"packetsSent":500,"bytesSent":40000,"packetsReceived":\(received),"bytesReceived":40000,
             "packetsLost":\(lost),"jitterMs":1.5,"rttMs":1,"concealedSamples":0,"totalSamplesPlayed":480000,
             "jitterBufferDelayMs":40,"jitterBufferTargetMs":40,"latePackets":0,"duplicatePackets":0,"audioLevel":0.25,
             "localAudioLevel":0.5,"srtpAuthenticationFailures":0,"srtpReplays":0,"dtmfReceived":0,"muted":false,"sendFailures":0,
             "preEncodedFramesSent":0,"malformedPackets":0,"unknownDatagrams":0,"dtlsDatagramsRefused":0,"fecNegotiated":false}
            """
        return try JSONDecoder().decode(MediaStatistics.self, from: Data(fields.utf8))
    }

    private static func result(_ index: Int, lost: Int, verdict: BotVerdict? = nil) throws -> LoadCallResult {
        let audio = try audio(received: 500 - lost, lost: lost)
        return LoadCallResult(index: index, callID: "c\(index)", answered: true, held: verdict == nil, failure: nil, setupMs: 40 + index, firstAudioMs: 60,
                              reason: TerminationReason(cause: "NORMAL_CLEARING", causeCode: 16), audio: audio, verdict: verdict,
                              quality: LoadCallQuality(audio), seconds: 2)
    }

    private static func summary(_ results: [LoadCallResult], _ thresholds: LoadThresholds, bot: Bool = false) -> LoadSummary {
        LoadSummary(results: results, attempted: results.count, seconds: 3, startingSeconds: 1, clock: (MediaClock.Lateness(), MediaClock.Lateness()),
                    interrupted: false, thresholds: thresholds, bot: bot)
    }

    @Test func aPassingRunEndsWithPassedAndEveryFigure() throws {
        let results = try (1...4).map { try Self.result($0, lost: 0) }
        let summary = Self.summary(results, LoadThresholds(maxSetupMs: 300, minMOS: 4, maxLossPercent: 1, maxFirstAudioMs: 500))
        #expect(summary.problems.isEmpty)
        let last = try #require(summary.lines.last)
        #expect(last.hasPrefix("PASSED: failed calls 0 of 4 within --max-failures 0; setup p95 44 ms within --max-setup-ms 300; MOS mean "))
        #expect(last.contains("at least --min-mos 4; loss 0.00% within --max-loss 1%; first audio p95 60 ms within --max-first-audio-ms 500"))
    }

    @Test func lossFailsTheMOSAndLossThresholdsNamingTheirFigures() throws {
        let results = try (1...4).map { try Self.result($0, lost: 50) }
        let summary = Self.summary(results, LoadThresholds(minMOS: 4, maxLossPercent: 1))
        #expect(summary.lossPercent == 10)
        let mos = try #require(summary.mos?.mean)
        #expect(mos < 4)
        #expect(summary.problems == [String(format: "MOS mean %.2f is under --min-mos 4", mos), "loss 10.00% is over --max-loss 1%"])
        let last = try #require(summary.lines.last)
        #expect(last.hasPrefix("FAILED: failed calls 0 of 4 within --max-failures 0; MOS mean"))
        #expect(last.contains("under --min-mos 4; loss 10.00% over --max-loss 1%"))
        #expect(summary.thresholds.map(\.passed) == [true, false, false])
    }

    @Test func noAudioCannotMeetAQualityThreshold() throws {
        var result = try Self.result(1, lost: 0)
        result.quality = nil
        let summary = Self.summary([result], LoadThresholds(minMOS: 3))
        #expect(summary.problems == ["no call received audio, so its MOS cannot be judged against --min-mos 3"])
    }

    @Test func aBotRunCountsNoHoldAndSummarisesItsFailures() throws {
        let results = try [
            Self.result(1, lost: 0, verdict: .passed),
            Self.result(2, lost: 0, verdict: .failed(step: "menu", reason: "expected a tone")),
            Self.result(3, lost: 0, verdict: .failed(step: "menu", reason: "expected a tone")),
            Self.result(4, lost: 0, verdict: .aborted(step: "menu", reason: "interrupted (Ctrl-C)")),
        ]
        let summary = Self.summary(results, LoadThresholds(), bot: true)
        #expect(summary.held == nil)
        #expect(summary.lines[0].hasPrefix("load: 4 attempted, 4 answered, 0 failed"))
        let verdicts = try #require(summary.verdicts)
        #expect((verdicts.passed, verdicts.failed, verdicts.aborted) == (1, 2, 1))
        #expect(verdicts.lines == ["bot verdicts: 1 passed, 2 failed, 1 aborted (failed at menu 2)", "  2 at menu: expected a tone"])
    }

    @Test func junitAndCSVEscapeWhatTheFarEndSays() throws {
        var row = CallReportRow(name: "call 1", callID: "c1", seconds: 1.5, setupMs: 40, firstAudioMs: 60, mos: 4.4, lossPercent: 0,
                                verdict: "failed", failedStep: "menu", reason: "heard \"<press 1>\" & more,\u{1} here\nthen")
        row.transcript = "press one"
        let xml = JUnitReport(suite: "parley load ivr", rows: [row]).xml
        #expect(xml.contains("message=\"step &quot;menu&quot;: heard &quot;&lt;press 1&gt;&quot; &amp; more, here&#10;then\" type=\"failed\""))
        #expect(xml.contains("transcript: press one</system-out>"))
        #expect(!xml.contains("\u{1}"))
        let csv = CSVReport(rows: [row]).text
        #expect(csv.hasSuffix("call 1,c1,failed,menu,\"heard \"\"<press 1>\"\" & more,\u{1} here\nthen\",40,60,4.40,0.00,1.500,,\r\n"))
    }

    @Test func junitCarriesTheRunsVerdictAndWallTime() throws {
        let rows = (1...3).map { CallReportRow(name: "call \($0)", callID: "c\($0)", seconds: 2.5, setupMs: 40, firstAudioMs: 60, mos: 4.4,
                                               lossPercent: 0, verdict: "passed", failedStep: nil, reason: nil) }
        let failed = RunVerdictCase(problems: ["setup p95 40 ms is over --max-setup-ms 1"], verdictLine: "FAILED: setup p95 40 ms over --max-setup-ms 1", seconds: 3.2)
        let xml = JUnitReport(suite: "parley load ivr", rows: rows, run: failed).xml
        #expect(xml.contains("<testsuite name=\"parley load ivr\" tests=\"4\" failures=\"1\" errors=\"0\" skipped=\"0\" time=\"3.200\""))
        #expect(xml.contains("name=\"run: thresholds and saturation\" time=\"3.200\">\n      <failure message=\"setup p95 40 ms is over --max-setup-ms 1\" type=\"failed\">"))
        let passed = RunVerdictCase(problems: [], verdictLine: "PASSED: failed calls 0 of 3 within --max-failures 0", seconds: 3.2)
        let green = JUnitReport(suite: "parley load ivr", rows: rows, run: passed).xml
        #expect(green.contains("tests=\"4\" failures=\"0\"") && !green.contains("<failure"))
        // A single call (parley call) has no run case; its time is the call's.
        #expect(JUnitReport(suite: "parley call ivr", rows: [rows[0]]).xml.contains("tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"0\" time=\"2.500\""))
    }

    @Test func aFailedHeardStepFillsExpectedAndHeard() throws {
        let reason = "expected \"press one for sales\" or \"press 1\" within 10 s; heard \"thanks for calling\" (word accuracy 0.20)"
        let row = CallReportRow(name: "call 1", callID: "c1", seconds: 1.5, setupMs: 40, firstAudioMs: 60, mos: 4.4, lossPercent: 0,
                                verdict: "failed", failedStep: "greeting", reason: reason)
        #expect(row.expected == "\"press one for sales\" or \"press 1\"")
        #expect(row.heard == "thanks for calling")
        #expect(JUnitReport(suite: "parley call ivr", rows: [row]).xml.contains("heard: thanks for calling"))
        #expect(CSVReport(rows: [row]).text.hasSuffix(",1.500,\"\"\"press one for sales\"\" or \"\"press 1\"\"\",thanks for calling\r\n"))
        let tone = CallReportRow(name: "call 1", callID: nil, seconds: 1, setupMs: nil, firstAudioMs: nil, mos: nil, lossPercent: nil,
                                 verdict: "failed", failedStep: "menu", reason: "expected a 880 Hz tone within 5 s; none came")
        #expect(tone.expected == nil && tone.heard == nil)
    }
}

/// The live line's attempt rate (issue 30: it read 0.0 attempts/s with every call up).
@Suite struct LoadAttemptRateTests {
    @Test func theRateStaysWhatItWasOnceEveryCallIsUp() async throws {
        let run = LoadRun(plan: LoadRun.Plan(total: 5, concurrency: 5, rate: 50))
        let placing = Task {
            await run.run { index in
                // Every call stays up until the run stops, as held calls do (bounded: 10 s).
                let deadline = ContinuousClock.now + .seconds(10)
                while await !run.isStopping, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
                return LoadCallResult(index: index, callID: nil, answered: true, held: true, failure: nil, setupMs: 1, firstAudioMs: nil, reason: nil, audio: nil)
            }
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while await run.attempted < 5, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(await run.attempted == 5)
        // Five calls started at most 50 a second: 4 intervals of at least 20 ms, so the rate is
        // positive and not above the one asked (a busy host only stretches the intervals).
        let rateWhenAllStarted = await run.attemptRate
        #expect(rateWhenAllStarted > 0 && rateWhenAllStarted <= 55, "rate \(rateWhenAllStarted)")
        // Time passing with every call up and none left to start does not bring the rate down.
        try await Task.sleep(for: .milliseconds(300))
        #expect(await run.attemptRate == rateWhenAllStarted)
        await run.stop()
        _ = await placing.value
    }
}
