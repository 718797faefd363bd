import Foundation
import Media
import Testing

/// `parley load`'s sources: one copy per process of what every call plays, looped, every frame
/// lent pre-encoded (so no call runs an encoder of its own for it).
@Suite(.serialized) struct SharedLoopSourceTests {
    static let pcmu = EncodedFrameFormat(codec: .pcmu(), frameMilliseconds: 20)

    /// Reads `frames` frames of 20 ms at 8 kHz and counts those the source lent pre-encoded.
    func lentFrames(_ source: any AudioSource, frames: Int) throws -> (lent: Int, samples: [Int16]) {
        let encoded = try #require(source as? any EncodedAudioSource)
        var frame = [Int16](repeating: 0, count: 160)
        var payload = [UInt8](repeating: 0, count: 1500)
        var lent = 0
        var samples: [Int16] = []
        for _ in 0..<frames {
            #expect(frame.withUnsafeMutableBufferPointer { source.read(into: $0) })
            samples += frame
            if payload.withUnsafeMutableBytes({ encoded.encodedFrame(Self.pcmu, into: $0) }) == 160 { lent += 1 }
        }
        return (lent, samples)
    }

    @Test func everyCallsToneComesFromOneCopyEncodedOnce() throws {
        let spec = try AudioSourceSpec("tone:440")
        let first = try spec.makeSharedLoopSource(sampleRate: 8000)
        let second = try spec.makeSharedLoopSource(sampleRate: 8000)
        let prompt = try #require((first as? LoopedPromptSource)?.prompt)
        #expect(prompt === (second as? LoopedPromptSource)?.prompt)
        #expect(prompt.samples.count == 8000)
        try prompt.encodeNow(Self.pcmu)
        // Past the end of the one-second loop: still lent, still the tone.
        let (lent, samples) = try lentFrames(first, frames: 75)
        #expect(lent == 75)
        #expect(samples[8000..<8160] == samples[0..<160])
    }

    @Test func aWAVFileLoopsPaddedToWholeFramesSoEveryFrameIsLent() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("shared-loop-\(getpid()).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorder = try WAVRecorder(path: path, sampleRate: 8000, stereo: false)
        let tone = [Int16](repeating: 1000, count: 1000)
        tone.withUnsafeBufferPointer { recorder.write(remote: $0, local: $0) }
        recorder.close()
        let source = try AudioSourceSpec(path).makeSharedLoopSource(sampleRate: 8000)
        let prompt = try #require((source as? LoopedPromptSource)?.prompt)
        #expect(prompt.samples.count == 1120, "1000 samples padded to seven 20 ms frames")
        try prompt.encodeNow(Self.pcmu)
        let (lent, samples) = try lentFrames(source, frames: 14)
        #expect(lent == 14)
        #expect(samples[999] == 1000 && samples[1000] == 0 && samples[1120] == 1000, "the file, silence to the frame's end, the file again")
    }
}
