import Foundation
@testable import Parley
import Media
import Testing

/// A call's switchable source lends pre-encoded frames from whichever source it is reading:
/// a bot's cached prompt, or a base source such as `--play loop:FILE.wav`.
@Suite struct AudioSourceSwitchEncodingTests {
    static let pcmu = EncodedFrameFormat(codec: .pcmu(), frameMilliseconds: 20)

    func tone(_ count: Int) -> [Int16] { (0..<count).map { Int16(8000 * sin(Double($0) * 0.3)) } }

    @Test func framesComeFromTheBaseAndThenFromAPrompt() async throws {
        let base = CachedPrompt(samples: tone(1600), sampleRate: 8000)
        try base.encodeNow(Self.pcmu)
        let looped = LoopedPromptSource(base)
        let sources = AudioSourceSwitch(base: looped)
        var frame = [Int16](repeating: 0, count: 160)
        var payload = [UInt8](repeating: 0, count: 1500)
        #expect(frame.withUnsafeMutableBufferPointer { sources.read(into: $0) })
        #expect(payload.withUnsafeMutableBytes { sources.encodedFrame(Self.pcmu, into: $0) } == 160, "the looped base lends its frames")
        #expect(payload[0] == G711.muLawEncode(frame[0]))

        let plain = AudioSourceSwitch(base: SilenceSource())
        #expect(frame.withUnsafeMutableBufferPointer { plain.read(into: $0) })
        #expect(payload.withUnsafeMutableBytes { plain.encodedFrame(Self.pcmu, into: $0) } == nil, "silence has no frames to lend")
    }

    /// The frame after a prompt ends is the base's, lent pre-encoded: a frame of the switch's
    /// own silence there made every bot call run an encoder once per prompt (docs/performance.md).
    @Test func theFrameAfterAPromptEndsIsTheBasesPreEncoded() async throws {
        let silence = try AudioSourceSpec.silence.makeSharedLoopSource(sampleRate: 8000)
        try #require((silence as? LoopedPromptSource)?.prompt.encodeNow(Self.pcmu) != nil)
        let sources = AudioSourceSwitch(base: silence)
        let prompt = CachedPrompt(samples: tone(160), sampleRate: 8000)
        try prompt.encodeNow(Self.pcmu)
        let played = Task { await sources.play(prompt.makeSource()) }
        var frame = [Int16](repeating: 0, count: 160)
        var payload = [UInt8](repeating: 0, count: 1500)
        // The prompt's one frame (once `play` has installed it, bounded), then the base's.
        for _ in 0..<200 {
            #expect(frame.withUnsafeMutableBufferPointer { sources.read(into: $0) })
            if frame.contains(where: { $0 != 0 }) { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(frame.contains { $0 != 0 }, "the prompt was read")
        #expect(frame.withUnsafeMutableBufferPointer { sources.read(into: $0) })
        #expect(await played.value)
        #expect(frame.allSatisfy { $0 == 0 })
        #expect(payload.withUnsafeMutableBytes { sources.encodedFrame(Self.pcmu, into: $0) } == 160, "the base's silence is lent pre-encoded")
    }
}
