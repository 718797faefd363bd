import Media
import Parley

extension BotPrompt {
    /// The prompt as one call plays it: its speech synthesised off the caller's thread (kept
    /// for later calls), and speech naming call variables filled in from `values` and rendered
    /// for this call alone.
    func prepared(values: [String: String]) async throws(AudioError) -> BotPrompt {
        switch self {
        case .say(let speech):
            let audio = try await SpeechSynthesizer.shared.prepare(speech, values: values)
            return speech.isPerCall ? .spoken(audio) : self
        case .sequence(let parts):
            var prepared: [BotPrompt] = []
            for part in parts { prepared.append(try await part.prepared(values: values)) }
            return .sequence(prepared)
        case .bargeIn(let prompt):
            return .bargeIn(try await prompt.prepared(values: values))
        case .tone, .silence, .wav, .spoken:
            return self
        }
    }

    var speaks: Bool {
        switch self {
        case .say: true
        case .sequence(let parts): parts.contains { $0.speaks }
        case .bargeIn(let prompt): prompt.speaks
        case .tone, .silence, .wav, .spoken: false
        }
    }
}
