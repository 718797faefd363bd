import Foundation

/// The limits a `parley load` run is judged by (docs/cli.md, "parley load"): failed calls, and
/// when asked, setup and first-audio p95, the mean MOS and the run's loss.
struct LoadThresholds {
    var maxFailures = 0
    var maxSetupMs: Int?
    var minMOS: Double?
    var maxLossPercent: Double?
    var maxFirstAudioMs: Int?

    /// Whether a threshold judges the run's figures (setup, first audio, MOS, loss): those a
    /// saturated generator makes its own, so such a run cannot pass. Failures and verdicts are
    /// counted, not measured, and stand (docs/cli.md, "When the load generator saturates").
    var judgesFigures: Bool { maxSetupMs != nil || minMOS != nil || maxLossPercent != nil || maxFirstAudioMs != nil }

    /// Each threshold with the run's figure, in the order the flags are documented.
    func checks(failures: Int, attempted: Int, setupP95: Int?, mosMean: Double?, lossPercent: Double?, firstAudioP95: Int?) -> [LoadThresholdCheck] {
        var checks = [LoadThresholdCheck(flag: "--max-failures", limit: Double(maxFailures), figure: Double(failures), kind: .atMost,
                                         text: "failed calls \(failures) of \(attempted)", unit: "", problem: nil)]
        if let maxSetupMs {
            checks.append(.latency("setup", flag: "--max-setup-ms", limit: maxSetupMs, p95: setupP95, missing: "no call was answered"))
        }
        if let minMOS {
            checks.append(LoadThresholdCheck(flag: "--min-mos", limit: minMOS, figure: mosMean, kind: .atLeast,
                                             text: mosMean.map { String(format: "MOS mean %.2f", $0) } ?? "MOS -", unit: "",
                                             problem: mosMean == nil ? "no call received audio, so its MOS cannot be judged against --min-mos \(Self.number(minMOS))" : nil))
        }
        if let maxLossPercent {
            checks.append(LoadThresholdCheck(flag: "--max-loss", limit: maxLossPercent, figure: lossPercent, kind: .atMost,
                                             text: lossPercent.map { String(format: "loss %.2f%%", $0) } ?? "loss -", unit: "%",
                                             problem: lossPercent == nil ? "no call received audio, so its loss cannot be judged against --max-loss \(Self.number(maxLossPercent))%" : nil))
        }
        if let maxFirstAudioMs {
            checks.append(.latency("first audio", flag: "--max-first-audio-ms", limit: maxFirstAudioMs, p95: firstAudioP95, missing: "no call received audio"))
        }
        return checks
    }

    static func number(_ value: Double) -> String { String(format: "%g", value) }
}

/// One threshold of a load run and the run's figure for it: in `--json` (`thresholds`) and in
/// the PASSED/FAILED line.
struct LoadThresholdCheck: Encodable {
    enum Kind: String, Encodable { case atMost = "at-most", atLeast = "at-least" }

    let flag: String
    let limit: Double
    /// nil when the run has no figure (no call answered, none received audio): a miss.
    let figure: Double?
    let kind: Kind
    let passed: Bool
    /// The figure for a person, e.g. `setup p95 45 ms`.
    let text: String
    private let unit: String
    private let missing: String?

    enum CodingKeys: String, CodingKey { case flag, limit, figure, kind, passed }

    init(flag: String, limit: Double, figure: Double?, kind: Kind, text: String, unit: String, problem missing: String?) {
        self.flag = flag
        self.limit = limit
        self.figure = figure
        self.kind = kind
        self.text = text
        self.unit = unit
        self.missing = missing
        passed = figure.map { kind == .atMost ? $0 <= limit : $0 >= limit } ?? false
    }

    static func latency(_ name: String, flag: String, limit: Int, p95: Int?, missing: String) -> LoadThresholdCheck {
        LoadThresholdCheck(flag: flag, limit: Double(limit), figure: p95.map(Double.init), kind: .atMost,
                           text: p95.map { "\(name) p95 \($0) ms" } ?? "\(name) p95 -", unit: "",
                           problem: p95 == nil ? "\(missing), so \(name) p95 cannot be within \(flag) \(limit)" : nil)
    }

    /// In the PASSED/FAILED line: the figure, where it stands, and the limit.
    var line: String {
        let relation = passed ? (kind == .atMost ? "within" : "at least") : (kind == .atMost ? "over" : "under")
        return "\(text) \(relation) \(flag) \(LoadThresholds.number(limit))\(unit)"
    }

    /// Why the run failed on this threshold; nil when it passed. `--max-failures` explains
    /// itself with the reasons (LoadSummary).
    var problem: String? {
        guard !passed, flag != "--max-failures" else { return nil }
        return missing ?? (kind == .atMost ? "\(text) is over \(flag) \(LoadThresholds.number(limit))\(unit)"
                                           : "\(text) is under \(flag) \(LoadThresholds.number(limit))\(unit)")
    }
}
