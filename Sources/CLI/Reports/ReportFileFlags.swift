import ArgumentParser
import Foundation
import Parley

/// `--junit FILE` and `--csv FILE` on `parley call` and `parley load`: one test case or row per
/// call, for a CI server (docs/cli.md, "Reports for CI").
struct ReportFileFlags: ParsableArguments {
    @Option(help: ArgumentHelp("Write a JUnit XML report: one test case per call, failures with the step and why.", valueName: "FILE"))
    var junit: String?

    @Option(help: ArgumentHelp("Write a CSV report: one row per call (setup, first audio, MOS, loss, verdict, failed step).", valueName: "FILE"))
    var csv: String?

    /// Before anything connects: a file whose folder is missing or read-only is a usage error.
    func check() throws(ParleyError) {
        for (flag, path) in [("--junit", junit), ("--csv", csv)] {
            guard let path else { continue }
            let folder = (path as NSString).deletingLastPathComponent
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder.isEmpty ? "." : folder, isDirectory: &isFolder), isFolder.boolValue,
                  FileManager.default.isWritableFile(atPath: folder.isEmpty ? "." : folder) else {
                throw ParleyError(kind: .configuration, message: "\(flag) \(path): the folder does not exist or cannot be written")
            }
        }
    }

    /// Writes the reports asked for; a file that cannot be written is an error on standard error.
    /// `run`: a whole run's verdict, a test case of its own in JUnit (the CSV has a row per call only).
    func write(_ rows: [CallReportRow], suite: String, run: RunVerdictCase? = nil, presenter: CallPresenter) {
        if let junit { save(JUnitReport(suite: suite, rows: rows, run: run).xml, to: junit, flag: "--junit", presenter: presenter) }
        if let csv { save(CSVReport(rows: rows).text, to: csv, flag: "--csv", presenter: presenter) }
    }

    private func save(_ text: String, to path: String, flag: String, presenter: CallPresenter) {
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            presenter.error(ParleyError(kind: .configuration, message: "\(flag) \(path): \(error.localizedDescription)"))
        }
    }
}
