import Foundation
@testable import Drivers
@testable import Parley
import Media
import TestSupport
import Testing

/// `heard:` and `keywords:` decide by spotting the expected words in the speech, measured
/// against decoys in the same audio (docs/speech.md, "How words are matched").
@Suite struct PhraseSpotterTests {
    @Test func expectedTextsAreCutIntoOverlappingRunsOfThreeWords() {
        #expect(PhraseSpotter.runs(["press", "one", "for", "sales"]) == ["press one for", "one for sales"])
        #expect(PhraseSpotter.runs(["sales"]) == ["sales"])
        #expect(PhraseSpotter.runs([]) == [])
    }

    @Test func aRunIsHeardWhenItBeatsTheDecoysMedianByTheMargin() {
        var scores = Dictionary(uniqueKeysWithValues: PhraseSpotter.decoys.enumerated().map { ($1, -0.040 + Double($0) * 0.0001) })
        let median = PhraseSpotter.decoys.map { scores[$0]! }.sorted()[PhraseSpotter.decoys.count / 2]
        scores["press one for"] = median + PhraseSpotter.margin + 0.001
        scores["one for sales"] = median + PhraseSpotter.margin - 0.001
        #expect(PhraseSpotter.accuracy(of: ["press", "one", "for", "sales"], scores: scores) == 0.75)
        scores["one for sales"] = median + PhraseSpotter.margin
        #expect(PhraseSpotter.accuracy(of: ["press", "one", "for", "sales"], scores: scores) == 1)
        // A keyword needs only to beat the decoys' median.
        scores["sales"] = median - 0.001
        #expect(PhraseSpotter.keywordScore(["sales"], scores: scores) == nil)
        scores["sales"] = median + 0.001
        #expect(PhraseSpotter.keywordScore(["sales"], scores: scores) == median + 0.001)
    }

    /// `text` spoken at 16 kHz or 8 kHz into a WAV file, heard as `parley transcribe --heard` hears it.
    static func spoken(_ text: String, voice: String, narrowband: Bool) async throws -> HeardSpeech {
        let rate = narrowband ? 8000 : SpeechDecoder.sampleRate
        let samples = try await FreshSpeech.audio(text, voice: voice, sampleRate: rate)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("spotter-\(UUID().uuidString).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorder = try WAVRecorder(path: path, sampleRate: rate)
        samples.withUnsafeBufferPointer { recorder.write(remote: $0, local: $0) }
        recorder.close()
        return try Transcription.heard(inFile: path)
    }

    /// espeak-ng's default voice ("en"), which the general language model all but cannot read
    /// (4-5 % word accuracy), and a Klatt voice, at 16 kHz (as Opus carries it): the right
    /// sentence is heard, another of the same length is not. (At 8 kHz espeak-ng's default
    /// voice is heard less often: docs/speech.md, "Figures".)
    @Test(.notInQuickCheck, arguments: ["en", "en-us+klatt4"])
    func theRightSentenceIsHeardAndAnotherIsNot(voice: String) async throws {
        let narrowband = false
        let hold = "please hold while we connect your call", balance = "your account balance is twenty dollars"
        for (said, other) in [(hold, balance), (balance, hold)] {
            let heard = try await Self.spoken(said, voice: voice, narrowband: narrowband)
            let right = try await heard.accuracy(of: [said])
            let wrong = try await heard.accuracy(of: [other])
            #expect(right >= BotHearing.defaultAccuracy, "\(voice) said \"\(said)\": \(right)")
            #expect(wrong < BotHearing.defaultAccuracy, "\(voice) said \"\(said)\", matched \"\(other)\": \(wrong)")
        }
    }

    @Test(.notInQuickCheck, arguments: ["en-us+klatt4"])
    func aSpokenKeywordChoosesItsBranch(voice: String) async throws {
        let keywords = ["sales", "support"]
        #expect(try await Self.spoken("sales please", voice: voice, narrowband: false).keyword(among: keywords) == 0)
        #expect(try await Self.spoken("support", voice: voice, narrowband: false).keyword(among: keywords) == 1)
    }
}
