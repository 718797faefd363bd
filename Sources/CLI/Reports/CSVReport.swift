import Foundation

/// `--csv FILE`: one row per call under a header (RFC 4180: fields with a comma, a quote or a
/// line break are quoted, quotes doubled). Empty where a figure is missing.
struct CSVReport {
    static let header = ["call", "call_id", "verdict", "failed_step", "reason", "setup_ms", "first_audio_ms", "mos", "loss_percent", "seconds", "expected", "heard"]

    let rows: [CallReportRow]

    var text: String {
        var lines = [Self.header.joined(separator: ",")]
        for row in rows {
            let fields: [String?] = [
                row.name, row.callID, row.verdict, row.failedStep, row.reason, row.setupMs.map(String.init), row.firstAudioMs.map(String.init),
                row.mos.map { String(format: "%.2f", $0) }, row.lossPercent.map { String(format: "%.2f", $0) }, String(format: "%.3f", row.seconds),
                row.expected, row.heard,
            ]
            lines.append(fields.map { Self.field($0 ?? "") }.joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
