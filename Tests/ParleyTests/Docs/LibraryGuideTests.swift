import Foundation
import Testing

@Suite struct LibraryGuideTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static func between(_ begin: String, _ end: String, in text: String) -> String? {
        guard let start = text.range(of: begin), let stop = text.range(of: end, range: start.upperBound..<text.endIndex) else { return nil }
        return String(text[start.upperBound..<stop.lowerBound]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The guide in docs/ and the DocC article show the same code, the code this target compiles.
    @Test(arguments: ["docs/calls.md", "Sources/Parley/Parley.docc/UsingTheLibrary.md"])
    func theGuideShowsTheSampleThatCompiles(_ document: String) throws {
        let sample = try String(contentsOf: Self.root.appendingPathComponent("Tests/ParleyTests/Docs/LibraryGuideSample.swift"), encoding: .utf8)
        let guide = try String(contentsOf: Self.root.appendingPathComponent(document), encoding: .utf8)
        let compiled = try #require(Self.between("// docs-sample:begin", "// docs-sample:end", in: sample))
        let shown = try #require(Self.between("<!-- sample: Tests/ParleyTests/Docs/LibraryGuideSample.swift -->\n```swift", "```", in: guide))
        #expect(shown == compiled)
    }
}
