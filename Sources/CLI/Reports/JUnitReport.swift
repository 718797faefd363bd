import Foundation

/// `--junit FILE`: JUnit XML as Jenkins, GitLab and GitHub's test reporters read it. Each call
/// is a `testcase`; a failed one holds a `failure` (the step, why, and what was expected and
/// heard when known), an aborted one an `error` (the test did not finish); the figures and the
/// transcript go in `system-out`. A run (`parley load`) adds its own verdict as a last test case
/// and its wall time as the suite's: the calls overlap, so their times do not add up to it.
struct JUnitReport {
    let suite: String
    let rows: [CallReportRow]
    var run: RunVerdictCase? = nil

    var xml: String {
        let runFailed = run.map { !$0.passed } ?? false
        let tests = rows.count + (run == nil ? 0 : 1)
        let failures = rows.count(where: { $0.verdict == "failed" }) + (runFailed ? 1 : 0)
        let errors = rows.count(where: { $0.verdict == "aborted" })
        let time = Self.seconds(run?.seconds ?? rows.reduce(0) { $0 + $1.seconds })
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"\(Self.escape(suite, attribute: true))\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(errors)\" time=\"\(time)\">\n"
        xml += "  <testsuite name=\"\(Self.escape(suite, attribute: true))\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(errors)\" skipped=\"0\" time=\"\(time)\""
            + " timestamp=\"\(Date().formatted(.iso8601))\">\n"
        for row in rows { xml += testCase(row) }
        if let run { xml += runCase(run) }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    private func runCase(_ run: RunVerdictCase) -> String {
        var xml = "    <testcase classname=\"\(Self.escape(suite, attribute: true))\" name=\"\(Self.escape(RunVerdictCase.name, attribute: true))\" time=\"\(Self.seconds(run.seconds))\">\n"
        if !run.passed {
            xml += "      <failure message=\"\(Self.escape(run.problems.joined(separator: "; "), attribute: true))\" type=\"failed\">"
                + "\(Self.escape(run.problems.joined(separator: "\n")))</failure>\n"
        }
        xml += "      <system-out>\(Self.escape(run.verdictLine))</system-out>\n"
        return xml + "    </testcase>\n"
    }

    private func testCase(_ row: CallReportRow) -> String {
        var xml = "    <testcase classname=\"\(Self.escape(suite, attribute: true))\" name=\"\(Self.escape(row.name, attribute: true))\" time=\"\(Self.seconds(row.seconds))\">\n"
        if row.verdict != "passed" {
            let element = row.verdict == "aborted" ? "error" : "failure"
            let message = (row.failedStep.map { "step \"\($0)\": " } ?? "") + (row.reason ?? row.verdict)
            var detail = row.failedStep.map { ["step: \($0)"] } ?? []
            if let reason = row.reason { detail.append("reason: \(reason)") }
            if let expected = row.expected { detail.append("expected: \(expected)") }
            if let heard = row.heard { detail.append("heard: \(heard)") }
            xml += "      <\(element) message=\"\(Self.escape(message, attribute: true))\" type=\"\(row.verdict)\">\(Self.escape(detail.joined(separator: "\n")))</\(element)>\n"
        }
        var out = ["call: \(row.callID ?? "-")"]
        out.append("setup: \(row.setupMs.map { "\($0) ms" } ?? "-"), first audio: \(row.firstAudioMs.map { "\($0) ms" } ?? "-")")
        out.append("MOS: \(row.mos.map { String(format: "%.2f", $0) } ?? "-"), loss: \(row.lossPercent.map { String(format: "%.2f%%", $0) } ?? "-")")
        if let transcript = row.transcript { out.append("transcript: \(transcript)") }
        xml += "      <system-out>\(Self.escape(out.joined(separator: "\n")))</system-out>\n"
        return xml + "    </testcase>\n"
    }

    private static func seconds(_ value: Double) -> String { String(format: "%.3f", value) }

    /// Text for an attribute or an element: the five entities escaped, and the characters XML
    /// 1.0 cannot carry (most control characters) left out. In an attribute a line break or a tab
    /// is a character reference: a parser turns a literal one into a space.
    static func escape(_ text: String, attribute: Bool = false) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&apos;"
            case "\n": escaped += attribute ? "&#10;" : "\n"
            case "\t": escaped += attribute ? "&#9;" : "\t"
            case "\r": escaped += "&#13;"
            default:
                let value = scalar.value
                guard value >= 0x20, !(0xFFFE...0xFFFF).contains(value) else { continue }
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
