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
}
