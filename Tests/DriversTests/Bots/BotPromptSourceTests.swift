import Foundation
import Media
import Drivers
import Parley
import Testing

@Suite struct BotPromptSourceTests {
    @Test func oneSecondToneAt8kHzIsExactly8000SamplesThenEnds() throws {
        let source = try BotPrompt.tone(frequency: 440, seconds: 1).makeSource(sampleRate: 8000)
        let (frames, count) = drain(source, frame: 160)
        #expect(count == 50)
        #expect(frames.allSatisfy { frame in frame.contains { $0 != 0 } })
    }

    @Test func aFrameSizeThatDoesNotDivideTheToneIsPaddedWithSilence() throws {
        let source = try BotPrompt.tone(frequency: 440, seconds: 1).makeSource(sampleRate: 8000)
        let (frames, count) = drain(source, frame: 480)
        #expect(count == 17, "16 full frames of 480 and one of 320 samples")
        let last = try #require(frames.last)
        #expect(last[320...].allSatisfy { $0 == 0 })
        #expect(last[..<320].contains { abs(Int($0)) > 5000 }, "the last 320 samples are still tone")
    }

    @Test func silenceEndsAfterItsDuration() throws {
        let source = try BotPrompt.silence(seconds: 0.5).makeSource(sampleRate: 48000)
        let (frames, count) = drain(source, frame: 960)
        #expect(count == 25)
        #expect(frames.allSatisfy { $0.allSatisfy { $0 == 0 } })
    }

    @Test func aSequenceJoinsItsPartsSampleExactly() throws {
        // 80 samples of tone, 80 of silence, 80 of tone at 8 kHz.
        let prompt = BotPrompt.sequence([.tone(frequency: 1000, seconds: 0.01), .silence(seconds: 0.01), .tone(frequency: 1000, seconds: 0.01)])
        #expect(prompt.seconds == 0.03)
        let (frames, count) = drain(try prompt.makeSource(sampleRate: 8000), frame: 160)
        #expect(count == 2)
        let samples = frames.flatMap { $0 }
        #expect(samples[0..<80].contains { abs(Int($0)) > 5000 })
        #expect(samples[80..<160].allSatisfy { $0 == 0 })
        #expect(samples[160..<240].contains { abs(Int($0)) > 5000 })
        #expect(samples[240...].allSatisfy { $0 == 0 })
    }

    @Test func aWAVPromptPlaysTheFileOnceAtTheSessionRate() throws {
        let directory = try BotFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("hello.wav").path
        try BotFiles.writeWAV(at: path, samples: 800)
        let (frames, count) = drain(try BotPrompt.wav(path: path).makeSource(sampleRate: 8000), frame: 160)
        #expect(count == 5)
        #expect(frames.allSatisfy { frame in frame.contains { $0 != 0 } })
        #expect(BotPrompt.wav(path: path).seconds == nil)

        // A WAV inside a sequence ends exactly where the file does.
        let joined = BotPrompt.sequence([.wav(path: path), .silence(seconds: 0.02)])
        #expect(drain(try joined.makeSource(sampleRate: 8000), frame: 160).endedAfter == 6)
    }

    @Test func aMissingWAVIsATypedError() {
        #expect(throws: AudioError.self) { try BotPrompt.wav(path: "/nonexistent/prompt.wav").makeSource(sampleRate: 8000) }
    }

    @Test func promptsDescribeThemselvesInTheShortForm() {
        #expect(BotPrompt.tone(frequency: 440, seconds: 1.5).description == "tone:440/1.5s")
        #expect(BotPrompt.sequence([.silence(seconds: 2), .wav(path: "/a.wav")]).description == "[silence/2s, /a.wav]")
    }
}
