import Foundation
import Media
import Drivers
import Parley
import Testing

/// Prompts are rendered once per process and rate and shared by every call that plays them.
@Suite struct BotPromptCacheTests {
    @Test func aPromptIsRenderedOncePerRateAndItsSourcesShareIt() throws {
        let cache = BotPromptCache()
        let prompt = BotPrompt.sequence([.tone(frequency: 600, seconds: 0.5), .silence(seconds: 0.1)])
        let first = try cache.prompt(prompt, sampleRate: 48000)
        let again = try cache.prompt(prompt, sampleRate: 48000)
        #expect(first === again)
        #expect(first.samples.count == 28800)
        #expect(try cache.prompt(prompt, sampleRate: 8000).samples.count == 4800)
        #expect(cache.count == 2)
        let one = first.makeSource()
        let two = first.makeSource()
        #expect(one.prompt === two.prompt)
        #expect(one.remaining == 28800 && two.remaining == 28800, "each source plays from the start")
    }

    @Test func botSourcesComePreEncodable() throws {
        let source = try BotPrompt.tone(frequency: 440, seconds: 0.2).makeSource(sampleRate: 48000)
        #expect(source is any EncodedAudioSource)
    }

    @Test func aPromptTooLongToKeepIsATypedError() {
        #expect(throws: AudioError.self) { try BotPromptCache().prompt(.silence(seconds: 3600), sampleRate: 48000) }
    }
}
