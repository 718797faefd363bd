import Foundation
import Locking

/// A prompt's audio held once per process: its samples at one rate, and its frames encoded once
/// per `EncodedFrameFormat` that a call asked for. Every call that plays the prompt reads from
/// here through its own `CachedPromptSource`, so a bot with many calls runs no encoder for its
/// prompts (the first call that needs a format is served by its own encoder while the frames are
/// encoded on a background queue).
package final class CachedPrompt: Sendable {
    package let sampleRate: Int
    package let samples: [Int16]

    private struct State {
        var encodings: [EncodedFrameFormat: EncodedFrames] = [:]
        var encoding: Set<EncodedFrameFormat> = []
        var failures: [EncodedFrameFormat: CodecError] = [:]
    }

    private let state = Lock(State())

    package init(samples: [Int16], sampleRate: Int) {
        self.samples = samples
        self.sampleRate = sampleRate
    }

    /// A source that plays the prompt once from the start; with `preEncoded` false it lends no
    /// frames, and the session encodes every frame itself.
    package func makeSource(preEncoded: Bool = true) -> CachedPromptSource {
        CachedPromptSource(self, preEncoded: preEncoded)
    }

    /// The frames in `format` if they are ready; otherwise nil, and (once) their encoding starts
    /// on a background queue. Never blocks on an encoder: it is called from the media clock.
    package func frames(_ format: EncodedFrameFormat) -> EncodedFrames? {
        let start: Bool = state.withLock { state in
            if state.encodings[format] != nil || state.encoding.contains(format) || state.failures[format] != nil { return false }
            state.encoding.insert(format)
            return true
        }
        if start {
            DispatchQueue.global(qos: .utility).async { [self] in _ = try? SignallingPriority.runAsBulkWork { () throws(CodecError) in try encodeNow(format) } }
        }
        return state.withLock { $0.encodings[format] }
    }

    /// Encodes the prompt in `format` now, on this thread, unless that was done already.
    @discardableResult
    package func encodeNow(_ format: EncodedFrameFormat) throws(CodecError) -> EncodedFrames {
        if let done = state.withLock({ $0.encodings[format] }) { return done }
        guard format.sampleRate == sampleRate else { throw .unsupported("a \(sampleRate) Hz prompt encoded for \(format.sampleRate) Hz") }
        let frames: EncodedFrames
        do {
            frames = try EncodedFrames(samples: samples, encoder: format.makeEncoder(), frameSamples: format.frameSamples)
        } catch {
            state.withLock { state in
                state.failures[format] = error
                state.encoding.remove(format)
            }
            throw error
        }
        return state.withLock { state in
            state.encoding.remove(format)
            if let raced = state.encodings[format] { return raced }
            state.encodings[format] = frames
            return frames
        }
    }

    /// Formats whose frames are ready, for tests and reports.
    package var encodedFormats: Set<EncodedFrameFormat> { state.withLock { Set($0.encodings.keys) } }
}

/// Every frame of a prompt encoded back to back in one buffer. Immutable once made.
package final class EncodedFrames: Sendable {
    package let frameSamples: Int
    private let bytes: [UInt8]
    /// Frame `i` is `bytes[offsets[i]..<offsets[i + 1]]`; an empty frame is DTX.
    private let offsets: [Int]

    init(samples: [Int16], encoder: any AudioEncoder, frameSamples: Int) throws(CodecError) {
        self.frameSamples = frameSamples
        var bytes: [UInt8] = []
        var offsets = [0]
        var frame = [Int16](repeating: 0, count: frameSamples)
        var payload = [UInt8](repeating: 0, count: 1500)
        var start = 0
        while start < samples.count {
            let count = min(frameSamples, samples.count - start)
            for index in 0..<frameSamples { frame[index] = index < count ? samples[start + index] : 0 }
            let result = frame.withUnsafeBufferPointer { pcm in
                payload.withUnsafeMutableBytes { out in Result { () throws(CodecError) in try encoder.encode(pcm, into: out) } }
            }
            let length = try result.get()
            bytes.append(contentsOf: payload[0..<length])
            offsets.append(bytes.count)
            start += frameSamples
        }
        self.bytes = bytes
        self.offsets = offsets
    }

    package var count: Int { offsets.count - 1 }

    /// Copies frame `index` into `payload`; its length, or nil when there is no such frame or it does not fit.
    package func copy(frame index: Int, into payload: UnsafeMutableRawBufferPointer) -> Int? {
        guard index >= 0, index < count else { return nil }
        let start = offsets[index]
        let length = offsets[index + 1] - start
        guard length <= payload.count else { return nil }
        if length > 0 {
            bytes.withUnsafeBytes { source in
                payload.baseAddress!.copyMemory(from: source.baseAddress!.advanced(by: start), byteCount: length)
            }
        }
        return length
    }
}

/// Plays a `CachedPrompt` once, sample-exact: `read` fills whole frames (the last one padded
/// with silence) and returns false from the first frame after the last sample, like any
/// bounded prompt. When its reads line up with frames of the session's format, it hands the
/// session those frames pre-encoded.
package final class CachedPromptSource: EncodedAudioSource {
    package let prompt: CachedPrompt
    private var position = 0
    /// Where the last read started and how many samples it took, for `encodedFrame`.
    private var lastRead: (start: Int, count: Int)?
    private var lookup = FrameLookup()
    private let preEncoded: Bool

    init(_ prompt: CachedPrompt, preEncoded: Bool) {
        self.prompt = prompt
        self.preEncoded = preEncoded
    }

    package var remaining: Int { max(0, prompt.samples.count - position) }

    package func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Bool {
        let count = min(frame.count, remaining)
        guard count > 0 || frame.isEmpty else {
            frame.update(repeating: 0)
            lastRead = nil
            return false
        }
        prompt.samples.withUnsafeBufferPointer { samples in
            if count > 0 { frame.baseAddress!.update(from: samples.baseAddress!.advanced(by: position), count: count) }
        }
        if count < frame.count { frame.baseAddress!.advanced(by: count).update(repeating: 0, count: frame.count - count) }
        lastRead = (position, frame.count)
        position += count
        return true
    }

    package func encodedFrame(_ format: EncodedFrameFormat, into payload: UnsafeMutableRawBufferPointer) -> Int? {
        guard preEncoded, let lastRead, format.sampleRate == prompt.sampleRate, lastRead.count == format.frameSamples,
            lastRead.start % format.frameSamples == 0
        else { return nil }
        guard let frames = lookup.frames(format, of: prompt) else { return nil }
        return frames.copy(frame: lastRead.start / format.frameSamples, into: payload)
    }
}

/// The frames of a prompt in the format a session last asked for: a session asks for one format
/// every tick, so the prompt's table is searched once.
struct FrameLookup {
    private var resolved: (format: EncodedFrameFormat, frames: EncodedFrames)?

    mutating func frames(_ format: EncodedFrameFormat, of prompt: CachedPrompt) -> EncodedFrames? {
        if let resolved, resolved.format == format { return resolved.frames }
        guard let ready = prompt.frames(format) else { return nil }
        resolved = (format, ready)
        return ready
    }
}
