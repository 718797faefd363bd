import Foundation
import Testing

@Suite struct TranscriptTests {
    static let directory = URL(fileURLWithPath: fixture("signaling"))

    static var transcripts: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasSuffix(".jsonl") }.sorted()
    }

    @Test func thereAreTranscripts() {
        #expect(Self.transcripts.count >= 15, "fixtures/signaling has \(Self.transcripts.count) transcripts")
    }

    @Test(arguments: transcripts)
    func replay(_ name: String) throws {
        try TranscriptReplay.run(file: Self.directory.appendingPathComponent(name))
    }
}
