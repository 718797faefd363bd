import Drivers
import Foundation
import Parley

/// One call in a JUnit or CSV report: its figures and its verdict.
struct CallReportRow: Sendable {
    /// `call 1`, `call 2`… in the order the calls were attempted.
    let name: String
    let callID: String?
    let seconds: Double
    let setupMs: Int?
    let firstAudioMs: Int?
    let mos: Double?
    let lossPercent: Double?
    /// `passed`, `failed` or `aborted` (a bot's verdict, or for a call without one, whether it
    /// did what it should).
    let verdict: String
    let failedStep: String?
    /// Why it failed or was aborted.
    let reason: String?
    /// What a failed `heard:` step expected and what it heard (the free transcript of the far
    /// end's speech, docs/speech.md), from its reason; the call's transcript: nil until a bot
    /// records one.
    var expected: String? = nil
    var heard: String? = nil
    var transcript: String? = nil

    init(name: String, callID: String?, seconds: Double, setupMs: Int?, firstAudioMs: Int?, mos: Double?, lossPercent: Double?,
         verdict: String, failedStep: String?, reason: String?) {
        self.name = name
        self.callID = callID
        self.seconds = seconds
        self.setupMs = setupMs
        self.firstAudioMs = firstAudioMs
        self.mos = mos.map(CallPresenter.rounded)
        self.lossPercent = lossPercent.map(CallPresenter.rounded)
        self.verdict = verdict
        self.failedStep = failedStep
        self.reason = reason
        (expected, heard) = reason.map(Self.words) ?? (nil, nil)
    }

    /// The texts of a failed `heard:` step's reason, `expected "A" or "B" within 10 s; heard
    /// "…" (word accuracy 0.20)` (Sources/Drivers/Bots/BotRun+Hearing.swift writes it): `"A" or
    /// "B"` and the words heard; nil for other reasons.
    static func words(in reason: String) -> (expected: String?, heard: String?) {
        guard reason.hasPrefix("expected \""), let within = reason.range(of: " within ") else { return (nil, nil) }
        let expected = String(reason[reason.index(reason.startIndex, offsetBy: "expected ".count)..<within.lowerBound])
        guard let start = reason.range(of: "; heard \"", range: within.upperBound..<reason.endIndex),
              let end = reason.range(of: "\"", options: .backwards, range: start.upperBound..<reason.endIndex) else {
            return (expected, nil)
        }
        return (expected, String(reason[start.upperBound..<end.lowerBound]))
    }

    /// A call of `parley load`: the bot's verdict, or without a bot (or when the call failed
    /// though its bot passed, e.g. `no-media`) its failure.
    init(_ result: LoadCallResult) {
        var (verdict, failedStep, reason) = (result.failure == nil ? "passed" : "failed", String?.none, result.failure)
        if result.failure == "interrupted" { verdict = "aborted" }
        if let botVerdict = result.verdict, botVerdict != .passed || result.failure == nil {
            (verdict, failedStep, reason) = (botVerdict.name, botVerdict.failure?.step, botVerdict.failure?.reason)
        }
        self.init(name: "call \(result.index)", callID: result.callID, seconds: result.seconds, setupMs: result.setupMs,
                  firstAudioMs: result.firstAudioMs, mos: result.quality?.mos, lossPercent: result.quality?.lossPercent,
                  verdict: verdict, failedStep: failedStep, reason: reason)
    }

    /// A call that never got going: the connection or the dial failed.
    static func setupFailed(_ error: ParleyError) -> CallReportRow {
        CallReportRow(name: "call 1", callID: nil, seconds: 0, setupMs: nil, firstAudioMs: nil, mos: nil, lossPercent: nil,
                      verdict: "failed", failedStep: nil, reason: "\(error.code): \(error.message)")
    }
}
