import ArgumentParser
import Foundation

struct SDPTestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run a folder of munging cases: input SDP, flags or rules, expected output.",
        discussion: """
            Each case is a folder with expected.sdp, the input (input.sdp, or the first line of command), \
            the sdp munge arguments (the other lines of command) and/or rules.yaml, and optionally warnings; \
            or a file trio NAME.in.sdp, NAME.rules.yaml or NAME.flags, NAME.expected.sdp. Prints one line \
            per case and a unified diff per failure. Exit status 0 when every case passes, 1 otherwise.
            """
    )

    @Argument(help: "The folder of cases (or one case folder).")
    var folder: String

    @Flag(help: "One JSON event per case, then a summary event.")
    var json = false

    @Flag(help: "Rewrite expected.sdp (and warnings) from what the munge gives now, printing what changed.")
    var update = false

    func run() throws {
        let cases: [SDPTestCase]
        do {
            cases = try SDPTestCase.discover(in: URL(fileURLWithPath: folder))
        } catch let error as ValidationError {
            throw error
        } catch {
            throw ValidationError("\(folder): \(error.localizedDescription)")
        }
        guard !cases.isEmpty else { throw ValidationError("\(folder): no cases (folders with expected.sdp, or NAME.expected.sdp files)") }
        var failed = 0, updated = 0
        for testCase in cases {
            let report: CaseReport
            switch testCase.run() {
            case .failure(let failure):
                report = CaseReport(name: testCase.name, status: "error", diff: nil, message: failure.message)
            case .success(let result):
                switch testCase.check(result) {
                case .passed:
                    report = CaseReport(name: testCase.name, status: "pass", diff: nil, message: nil)
                case .failed(let diff) where update:
                    do {
                        try testCase.update(with: result)
                        report = CaseReport(name: testCase.name, status: "updated", diff: diff, message: nil)
                    } catch {
                        report = CaseReport(name: testCase.name, status: "error", diff: nil, message: "cannot write the expectations: \(error.localizedDescription)")
                    }
                case .failed(let diff):
                    report = CaseReport(name: testCase.name, status: "fail", diff: diff, message: nil)
                }
            }
            if report.status == "fail" || report.status == "error" { failed += 1 }
            if report.status == "updated" { updated += 1 }
            emit(report)
        }
        let passed = cases.count - failed - updated
        if json {
            JSONEvents.emit("summary", Summary(cases: cases.count, passed: passed, failed: failed, updated: updated))
        } else {
            print("\(cases.count) cases: \(passed) passed, \(failed) failed" + (update ? ", \(updated) updated" : ""))
        }
        if failed > 0 { throw ExitCode(1) }
    }

    private func emit(_ report: CaseReport) {
        if json {
            JSONEvents.emit("case", report)
            return
        }
        print("\(report.status.uppercased().padding(toLength: 7, withPad: " ", startingAt: 0)) \(report.name)")
        if let message = report.message { print("  " + message) }
        if let diff = report.diff { print(diff, terminator: "") }
    }
}

private struct CaseReport: Encodable {
    let name: String
    /// pass, fail, error (the case could not run) or updated.
    let status: String
    let diff: String?
    let message: String?
}

private struct Summary: Encodable {
    let cases: Int
    let passed: Int
    let failed: Int
    let updated: Int
}
