import Foundation
import Locking

extension AudioSourceSpec {
    /// The source played over and over from one copy per process, its frames encoded once per
    /// codec format and shared by every call (`parley load`: hundreds of calls playing the same
    /// thing cost no encoder each). A tone loops one second (whole periods for whole-hertz
    /// tones), a WAV file loops its samples padded with silence to a whole 20 ms frame, and
    /// silence loops one frame. Standard input and a microphone cannot be shared; they are read as by `makeSource`.
    package func makeSharedLoopSource(sampleRate: Int) throws(AudioError) -> any AudioSource {
        switch self {
        case .standardInput, .microphone:
            return try makeSource(sampleRate: sampleRate)
        case .tone, .silence, .wav:
            return LoopedPromptSource(try SharedLoops.shared.prompt(self, sampleRate: sampleRate))
        }
    }
}

/// The looped prompts of `makeSharedLoopSource`, per source and rate.
final class SharedLoops: Sendable {
    static let shared = SharedLoops()

    private struct Key: Hashable {
        let spec: String
        let sampleRate: Int
    }

    private let prompts = Lock<[Key: CachedPrompt]>([:])

    func prompt(_ spec: AudioSourceSpec, sampleRate: Int) throws(AudioError) -> CachedPrompt {
        let key = Key(spec: "\(spec)", sampleRate: sampleRate)
        if let cached = prompts.withLock({ $0[key] }) { return cached }
        let frame = sampleRate / 50
        var samples: [Int16]
        switch spec {
        case .tone(let frequency):
            samples = [Int16](repeating: 0, count: sampleRate)
            samples.withUnsafeMutableBufferPointer { _ = ToneSource(frequency: frequency, sampleRate: sampleRate).read(into: $0) }
        case .silence, .standardInput, .microphone:
            samples = [Int16](repeating: 0, count: frame)
        case .wav(let path, _):
            let file = try WAVFileSource(path: path, sampleRate: sampleRate)
            samples = [Int16](repeating: 0, count: max(frame, (file.duration + frame - 1) / frame * frame))
            samples.withUnsafeMutableBufferPointer { _ = file.read(into: UnsafeMutableBufferPointer(rebasing: $0[0..<file.duration])) }
        }
        let prompt = CachedPrompt(samples: samples, sampleRate: sampleRate)
        return prompts.withLock { prompts in
            if let raced = prompts[key] { return raced }
            prompts[key] = prompt
            return prompt
        }
    }
}
