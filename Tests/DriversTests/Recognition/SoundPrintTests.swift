import Foundation
@testable import Drivers
@testable import Parley
import Media
import Testing

/// `prompt: welcome.wav`: speech matched with a recording by how it sounds (docs/speech.md).
@Suite struct SoundPrintTests {
    static func spoken(_ text: String, voice: String = "en-us", rate: Int = 175) throws -> [Int16] {
        try SpeechSynthesizer.shared.audio(Speech(text, voice: voice, rate: rate), sampleRate: SoundPrint.sampleRate)
    }

    /// Through a narrowband line: down to 8 kHz and back, at two thirds of the level.
    static func overTheLine(_ samples: [Int16]) throws -> [Int16] {
        let narrow = try AudioResampler.resample(samples, from: SoundPrint.sampleRate, to: 8000)
        return try AudioResampler.resample(narrow.map { Int16(Int($0) * 2 / 3) }, from: 8000, to: SoundPrint.sampleRate)
    }

    @Test func theSamePromptOverALineMatchesAndAnotherOfTheSameLengthDoesNot() throws {
        let reference = SoundPrint(samples: try Self.spoken("Welcome to the help desk. Please say sales or support."))
        let same = reference.similarity(to: SoundPrint(samples: try Self.overTheLine(try Self.spoken("Welcome to the help desk. Please say sales or support."))))
        let other = reference.similarity(to: SoundPrint(samples: try Self.overTheLine(try Self.spoken("Thanks for calling the car park. Please say north or south."))))
        let otherVoice = reference.similarity(to: SoundPrint(samples: try Self.overTheLine(try Self.spoken("Welcome to the help desk. Please say sales or support.", voice: "en-us+klatt4", rate: 150))))
        print("similarity: same \(same), another prompt \(other), the same words in another voice \(otherVoice)")
        #expect(same >= BotHearing.defaultSimilarity)
        #expect(other < BotHearing.defaultSimilarity)
    }

    @Test func thePromptAfterOtherSpeechStillMatches() throws {
        let prompt = try Self.spoken("Your call is important to us.")
        let reference = SoundPrint(samples: prompt)
        let heard = try Self.overTheLine(try Self.spoken("Please hold.") + [Int16](repeating: 0, count: 4000) + prompt)
        #expect(reference.similarity(to: SoundPrint(samples: heard)) >= BotHearing.defaultSimilarity)
    }

    @Test func silenceMatchesNothing() {
        let reference = SoundPrint(samples: [Int16](repeating: 0, count: 16000))
        #expect(reference.frames.isEmpty)
        #expect(reference.similarity(to: reference) == 0)
    }
}
