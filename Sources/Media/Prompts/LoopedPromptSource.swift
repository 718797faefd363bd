import Foundation
import Locking

/// `--play loop:FILE.wav`: the file's samples over and over. When one pass is a whole number of
/// frames, every frame is lent pre-encoded (the pass is encoded once per process and format),
/// so a call that loops a prompt runs no encoder of its own.
package final class LoopedPromptSource: EncodedAudioSource {
    package let prompt: CachedPrompt
    private var position = 0
    private var lastRead: (start: Int, count: Int)?
    private var lookup = FrameLookup()

    package init(_ prompt: CachedPrompt) {
        self.prompt = prompt
    }

    /// The WAV file at `path` at `sampleRate`, read once per process.
    package convenience init(path: String, sampleRate: Int) throws(AudioError) {
        self.init(try LoopedPromptSource.library.prompt(path: path, sampleRate: sampleRate))
    }

    package func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Bool {
        let total = prompt.samples.count
        guard total > 0 else {
            frame.update(repeating: 0)
            lastRead = nil
            return frame.isEmpty
        }
        lastRead = (position, frame.count)
        prompt.samples.withUnsafeBufferPointer { samples in
            var filled = 0
            while filled < frame.count {
                let count = min(frame.count - filled, total - position)
                frame.baseAddress!.advanced(by: filled).update(from: samples.baseAddress!.advanced(by: position), count: count)
                filled += count
                position += count
                if position == total { position = 0 }
            }
        }
        return true
    }

    package func encodedFrame(_ format: EncodedFrameFormat, into payload: UnsafeMutableRawBufferPointer) -> Int? {
        guard let lastRead, format.sampleRate == prompt.sampleRate, lastRead.count == format.frameSamples,
            prompt.samples.count % format.frameSamples == 0, lastRead.start % format.frameSamples == 0
        else { return nil }
        guard let frames = lookup.frames(format, of: prompt) else { return nil }
        return frames.copy(frame: lastRead.start / format.frameSamples, into: payload)
    }

    /// WAV files read for looping, per path and rate, shared by every call in the process.
    static let library = WAVPromptLibrary()
}

final class WAVPromptLibrary: Sendable {
    private let prompts = Lock<[String: CachedPrompt]>([:])

    func prompt(path: String, sampleRate: Int) throws(AudioError) -> CachedPrompt {
        let key = "\(sampleRate):\(path)"
        if let cached = prompts.withLock({ $0[key] }) { return cached }
        let file = try WAVFileSource(path: path, sampleRate: sampleRate)
        var samples = [Int16](repeating: 0, count: file.duration)
        samples.withUnsafeMutableBufferPointer { _ = file.read(into: $0) }
        let prompt = CachedPrompt(samples: samples, sampleRate: sampleRate)
        return prompts.withLock { prompts in
            if let raced = prompts[key] { return raced }
            prompts[key] = prompt
            return prompt
        }
    }
}
