@testable import CLI
import Testing

/// Lines on a terminal break between words, never inside one (the end-of-call summary at 80
/// and 60 columns used to wrap mid-word).
@Suite struct LineWrapTests {
    static let summary = "  opus: sent 1520 packets, received 1498, lost 22, jitter 3.4 ms, rtt 12.5 ms, concealed 1.2%"

    @Test(arguments: [40, 60, 80])
    func theSummaryBreaksBetweenWords(width: Int) {
        let lines = LineWrap.lines(Self.summary, width: width)
        #expect(lines.count > 1)
        for line in lines { #expect(line.count <= width - 1, "\(line.count) columns: \(line)") }
        // Every word is whole on some line, and nothing is lost or added.
        let words = Self.summary.split(separator: " ")
        #expect(lines.flatMap { $0.split(separator: " ") } == words)
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("    ") && !$0.hasPrefix("     ") })
        #expect(lines[0].hasPrefix("  opus: sent"))
    }

    @Test func aShortLineIsLeftAlone() {
        #expect(LineWrap.lines("call 12345678: ended: normal", width: 80) == ["call 12345678: ended: normal"])
        #expect(LineWrap.lines("", width: 80) == [""])
    }

    @Test func aWordLongerThanALineIsCut() {
        let word = String(repeating: "x", count: 50)
        let lines = LineWrap.lines("see " + word, width: 20)
        #expect(lines.allSatisfy { $0.count <= 19 })
        #expect(lines.joined().filter { $0 == "x" }.count == 50)
    }
}
