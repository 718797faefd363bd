import Foundation
@testable import Drivers
@testable import Parley
import Media
import TestSupport
import Testing

/// No audio and no expected text crashes the recogniser: the inputs `Fuzz/Sources/HearingFuzz`
/// draws from, through the path `parley transcribe --heard` and a `heard:` step take (a free
/// transcript, then spotting, on the same decoder).
@Suite(.serialized) struct RecognitionRobustnessTests {
    static let northwind = "Thank you for calling Northwind Bank. To check your balance, press one. To report a lost card, press two."

    /// The recogniser's crash: a whole-utterance decode (the free transcript) left the decoder's
    /// cepstrum buffer as long as the sentence, and the next spotting search on that decoder
    /// died in libsphinxbase's cmn_live (SpeechDecoder.stream says why).
    @Test func aTranscriptThenSpottingOnOneDecoderHearsTheWholeSentence() async throws {
        let samples = try await FreshSpeech.audio(Self.northwind, voice: "en", sampleRate: SpeechDecoder.sampleRate)
        let decoder = try SpeechDecoder()
        let transcript = try decoder.decode(samples)
        #expect(!transcript.isEmpty)
        let expected = WordMatch.words("to check your balance press one")
        let scores = try decoder.spot(samples, phrases: PhraseSpotter.phrases(for: PhraseSpotter.runs(expected)))
        #expect(PhraseSpotter.accuracy(of: expected, scores: scores) >= BotHearing.defaultAccuracy, "\(scores)")
        // The sentence's last words, 6 s in, were searched too.
        let last = WordMatch.words("report a lost card press two")
        let lastScores = try decoder.spot(samples, phrases: PhraseSpotter.phrases(for: PhraseSpotter.runs(last)))
        #expect(PhraseSpotter.accuracy(of: last, scores: lastScores) >= BotHearing.defaultAccuracy, "\(lastScores)")
    }

    /// The expected texts a `heard:` step or `transcribe --heard` may be given.
    static let texts: [String] = [
        "", "sales", String(repeating: "press one for sales ", count: 50), "1 2 3 4 5 6 7 8 9 0 42",
        "xyzzy qwfp zzgrbl", "hello, world! (press #1) -- ok? ... \"yes\"", "café naïve 日本語 ÆØÅ",
        "don't can't won't", "/1e-5/ press one /", "\u{0}\u{7}\t\n",
    ]

    /// Audio nothing in a call should send, and some it might, mostly at 8 kHz as G.711 carries it.
    static func audios() -> [(String, [Int16], Int)] {
        var noise = SystemRandomNumberGenerator()
        let second = 8000
        return [
            ("one sample", [1234], second),
            ("silence", [Int16](repeating: 0, count: second), second),
            ("full-scale noise", (0..<second).map { _ in Int16.random(in: .min ... .max, using: &noise) }, second),
            ("square wave at the rails", (0..<second).map { ($0 / 20) % 2 == 0 ? Int16.max : Int16.min }, second),
            ("DC at the floor", [Int16](repeating: .min, count: second / 2), second),
            ("odd rate", (0..<11025).map { Int16(truncatingIfNeeded: $0 &* 7919) }, 11025),
        ]
    }

    /// Each text against each audio, as `heard:` judges it, on the shared recogniser: every
    /// answer is a word accuracy from 0 to 1 or a RecognitionError, never a crash; a free
    /// transcript between the checks reuses the decoders as a failed step's verdict does.
    @Test(.notInQuickCheck) func adversarialAudioAndTextsNeverCrashTheRecogniser() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("robustness-\(UUID().uuidString).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        for (name, samples, rate) in Self.audios() {
            let recorder = try WAVRecorder(path: path, sampleRate: rate)
            samples.withUnsafeBufferPointer { recorder.write(remote: $0, local: $0) }
            recorder.close()
            // As `parley transcribe --heard` does: the free transcript, then spotting.
            _ = try? await Transcription.words(inFile: path)
            let heard = try Transcription.heard(inFile: path)
            for text in Self.texts {
                do {
                    let accuracy = try await heard.accuracy(of: [text])
                    #expect((0...1).contains(accuracy), "\(name), \"\(text)\": \(accuracy)")
                    if WordMatch.words(text).isEmpty { #expect(accuracy == 0, "\(name), \"\(text)\"") }
                } catch {
                    // A typed failure is an answer: the step fails, the process goes on.
                    #expect(!error.description.isEmpty)
                }
            }
            if let keyword = try? await heard.keyword(among: Self.texts) {
                #expect(Self.texts.indices.contains(keyword), "\(name): keyword \(keyword)")
            }
        }
    }
}
