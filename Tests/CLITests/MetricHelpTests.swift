@testable import CLI
import Foundation
import Testing

/// Every metric docs/metrics.md lists has `# HELP` text, and nothing has text the docs lack.
@Suite struct MetricHelpTests {
    @Test func everyDocumentedMetricHasHelpText() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let docs = try String(contentsOf: root.appendingPathComponent("docs/metrics.md"), encoding: .utf8)
        let documented = Set(docs.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("| `parley_") else { return nil }
            return line.dropFirst(3).split(separator: "`").first.map(String.init)
        })
        #expect(documented.count > 20)
        #expect(Set(MetricHelp.text.keys) == documented)
        #expect(MetricHelp.text.values.allSatisfy { !$0.isEmpty && !$0.contains("\n") })
    }
}
