import Foundation
import Testing

@Suite struct SIPTranscriptTests {
    static let directory = URL(fileURLWithPath: fixture("sip"))

    static var transcripts: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasSuffix(".sip") }.sorted()
    }

    @Test func thereAreTranscripts() {
        #expect(Self.transcripts.count >= 5, "fixtures/sip has \(Self.transcripts.count) transcripts")
    }

    @Test(arguments: transcripts)
    func replay(_ name: String) throws {
        try SIPTranscriptReplay.run(file: Self.directory.appendingPathComponent(name))
    }
}
