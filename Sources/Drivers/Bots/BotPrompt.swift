import Media
import Parley

/// Something a bot plays to the caller. Every prompt has an end.
public indirect enum BotPrompt: Sendable, Hashable, CustomStringConvertible {
    /// A sine tone of `frequency` Hz for `seconds`.
    case tone(frequency: Double, seconds: Double)
    case silence(seconds: Double)
    /// A 16-bit PCM WAV file (any rate, mono or stereo), played once. The path is absolute
    /// once the script has been loaded.
    case wav(path: String)
    /// The parts played one after the other, with no gap between them.
    case sequence([BotPrompt])
    /// Text spoken by espeak-ng. Without call variables it is synthesised once per process.
    case say(Speech)
    /// Speech a bot rendered for one call (its text named call variables); never cached.
    case spoken(SpokenAudio)
    /// The prompt, stopped as soon as the caller presses a key or starts to speak
    /// (`barge_in: true` in a script).
    case bargeIn(BotPrompt)

    /// The length in seconds, when it is known without reading a file.
    public var seconds: Double? {
        switch self {
        case .tone(_, let seconds), .silence(let seconds): seconds
        case .wav, .say, .spoken: nil
        case .bargeIn(let prompt): prompt.seconds
        case .sequence(let parts):
            parts.reduce(0.0 as Double?) { total, part in
                guard let total, let seconds = part.seconds else { return nil }
                return total + seconds
            }
        }
    }

    public var description: String {
        switch self {
        case .tone(let frequency, let seconds): "tone:\(Self.format(frequency))/\(Self.format(seconds))s"
        case .silence(let seconds): "silence/\(Self.format(seconds))s"
        case .wav(let path): path
        case .sequence(let parts): "[" + parts.map(\.description).joined(separator: ", ") + "]"
        case .say(let speech): "say:" + speech.text
        // Its text may hold the caller's digits, which stay out of logs.
        case .spoken: "say:(spoken for this call)"
        case .bargeIn(let prompt): "\(prompt.description) (barge-in)"
        }
    }

    /// A source that plays the prompt once and then ends: `read` returns false from the first
    /// frame after the last sample. The prompt's audio is rendered (WAV files read and
    /// converted) once per process and rate, and its frames are encoded once per codec format:
    /// every call playing it shares them (`BotPromptCache`).
    package func makeSource(sampleRate: Int) throws(AudioError) -> any AudioSource {
        let cache = BotPromptCache.shared
        guard !isPerCall else {
            let samples = try render(sampleRate: sampleRate, maximumSamples: BotPromptCache.maximumSamples)
            return CachedPrompt(samples: samples, sampleRate: sampleRate).makeSource(preEncoded: false)
        }
        return try cache.prompt(self, sampleRate: sampleRate).makeSource(preEncoded: cache.preEncoded)
    }

    /// Whether some part is rendered for one call only, so no cache keeps it.
    var isPerCall: Bool {
        switch self {
        case .spoken: true
        case .say(let speech): speech.isPerCall
        case .sequence(let parts): parts.contains { $0.isPerCall }
        case .bargeIn(let prompt): prompt.isPerCall
        case .tone, .silence, .wav: false
        }
    }

    /// The prompt's samples at `sampleRate`, start to end, exactly as long as the prompt.
    func render(sampleRate: Int, maximumSamples: Int) throws(AudioError) -> [Int16] {
        var parts: [BoundedSource] = []
        try appendSources(to: &parts, sampleRate: sampleRate)
        let total = parts.reduce(0) { $0 + $1.remaining }
        guard total <= maximumSamples else {
            throw .unsupportedWAV(path: description, reason: "a prompt longer than \(maximumSamples / max(1, sampleRate)) s")
        }
        let chunk = max(1, sampleRate / 50)
        var samples = [Int16](repeating: 0, count: total)
        samples.withUnsafeMutableBufferPointer { all in
            var offset = 0
            for part in parts {
                while part.remaining > 0 {
                    let count = min(chunk, part.remaining)
                    _ = part.read(into: UnsafeMutableBufferPointer(rebasing: all[offset..<(offset + count)]))
                    offset += count
                }
            }
        }
        return samples
    }

    private func appendSources(to parts: inout [BoundedSource], sampleRate: Int) throws(AudioError) {
        switch self {
        case .tone(let frequency, let seconds):
            parts.append(BoundedSource(ToneSource(frequency: frequency, sampleRate: sampleRate), samples: Self.samples(seconds, sampleRate)))
        case .silence(let seconds):
            parts.append(BoundedSource(SilenceSource(), samples: Self.samples(seconds, sampleRate)))
        case .wav(let path):
            let file = try WAVFileSource(path: path, sampleRate: sampleRate, loop: false)
            parts.append(BoundedSource(file, samples: file.duration))
        case .sequence(let prompts):
            for prompt in prompts { try prompt.appendSources(to: &parts, sampleRate: sampleRate) }
        case .say(let speech):
            parts.append(Self.samplesSource(try SpeechSynthesizer.shared.audio(speech, sampleRate: sampleRate), sampleRate))
        case .spoken(let audio):
            parts.append(Self.samplesSource(try AudioResampler.resample(audio.samples, from: audio.sampleRate, to: sampleRate), sampleRate))
        case .bargeIn(let prompt):
            try prompt.appendSources(to: &parts, sampleRate: sampleRate)
        }
    }

    private static func samplesSource(_ samples: [Int16], _ sampleRate: Int) -> BoundedSource {
        BoundedSource(CachedPrompt(samples: samples, sampleRate: sampleRate).makeSource(preEncoded: false), samples: samples.count)
    }

    private static func samples(_ seconds: Double, _ sampleRate: Int) -> Int {
        max(0, Int((seconds * Double(sampleRate)).rounded()))
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
