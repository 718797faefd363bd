import Foundation
import Testing

@Suite struct QualityGuideTests {
    @Test func theQualitySectionShowsTheSampleThatCompiles() throws {
        let sample = try String(contentsOf: LibraryGuideTests.root.appendingPathComponent("Tests/ParleyTests/Docs/QualityGuideSample.swift"), encoding: .utf8)
        let guide = try String(contentsOf: LibraryGuideTests.root.appendingPathComponent("docs/calls.md"), encoding: .utf8)
        let compiled = try #require(LibraryGuideTests.between("// docs-sample:begin", "// docs-sample:end", in: sample))
        let shown = try #require(LibraryGuideTests.between("<!-- sample: Tests/ParleyTests/Docs/QualityGuideSample.swift -->\n```swift", "```", in: guide))
        #expect(shown == compiled)
    }
}
