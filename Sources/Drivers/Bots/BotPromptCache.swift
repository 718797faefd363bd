import Foundation
import Media
import Locking
import Parley

/// Every prompt a bot plays, rendered once per process and sample rate, with its frames encoded
/// once per codec format (`CachedPrompt`). Prompts come from a script, so the set is small and
/// fixed; a WAV file is read the first time it is played and not again (a file changed on disk
/// while the bot runs keeps playing its old contents).
package final class BotPromptCache: Sendable {
    package static let shared = BotPromptCache()

    /// A prompt longer than this (10 minutes at 48 kHz) is refused rather than held in memory.
    static let maximumSamples = 48000 * 600

    private struct Key: Hashable {
        let prompt: BotPrompt
        let sampleRate: Int
    }

    private struct State {
        var prompts: [Key: CachedPrompt] = [:]
        var lendsFrames = true
    }

    private let state = Lock(State())

    /// Whether calls send the prompts' pre-encoded frames (the default) or encode them in every
    /// call, as `parley answer --no-prompt-cache` asks, to measure what the cache saves.
    package var preEncoded: Bool {
        get { state.withLock { $0.lendsFrames } }
        set { state.withLock { $0.lendsFrames = newValue } }
    }

    package init() {}

    /// The prompt's audio at `sampleRate`, rendered now if this is its first use.
    package func prompt(_ prompt: BotPrompt, sampleRate: Int) throws(AudioError) -> CachedPrompt {
        let key = Key(prompt: prompt, sampleRate: sampleRate)
        if let cached = state.withLock({ $0.prompts[key] }) { return cached }
        let rendered = CachedPrompt(samples: try prompt.render(sampleRate: sampleRate, maximumSamples: Self.maximumSamples), sampleRate: sampleRate)
        return state.withLock { state in
            if let raced = state.prompts[key] { return raced }
            state.prompts[key] = rendered
            return rendered
        }
    }

    package var count: Int { state.withLock { $0.prompts.count } }
}
