import Foundation
import Media
import TestSupport
import Testing

/// Speech for tests whose verdict rests on the recogniser's scores. espeak-ng's samples depend on
/// what its process spoke before (docs/bots.md, "Speech"), so in-process synthesis would make a
/// score depend on which tests ran first; a fresh `parley say` process speaks the same samples
/// every time.
enum FreshSpeech {
    static func audio(_ text: String, voice: String, sampleRate: Int) async throws -> [Int16] {
        let parley = try #require(BuiltProducts.parley, "the parley executable is built beside the test bundle")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fresh-speech-\(UUID().uuidString).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await run(parley, ["say", text, "--voice", voice, "--sample-rate", "\(sampleRate)", "--output", path])
        let source = try WAVFileSource(path: path, sampleRate: sampleRate)
        var samples = [Int16](repeating: 0, count: source.duration)
        _ = samples.withUnsafeMutableBufferPointer { source.read(into: $0) }
        return samples
    }
}
