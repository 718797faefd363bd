import Foundation
import Media
import TestSupport
import Testing

/// A prompt encoded once and sent from the cache: the bytes are those a fresh encoder makes,
/// the source hands them out only where its reads line up with frames, and a session sends them
/// without encoding (the peer hears the prompt).
@Suite(.serialized) struct CachedPromptTests {
    static let opus = MediaCodec.opus(payloadType: 111, settings: OpusSettings())
    static let opusFormat = EncodedFrameFormat(codec: opus, frameMilliseconds: 20)

    func tone(_ frequency: Double, samples: Int, rate: Int) -> [Int16] {
        let source = ToneSource(frequency: frequency, sampleRate: rate)
        var samplesOut = [Int16](repeating: 0, count: samples)
        samplesOut.withUnsafeMutableBufferPointer { _ = source.read(into: $0) }
        return samplesOut
    }

    @Test func cachedFramesAreWhatAFreshEncoderMakes() throws {
        let samples = tone(600, samples: 48000 / 2 + 100, rate: 48000)  // 25 frames and 100 samples
        let prompt = CachedPrompt(samples: samples, sampleRate: 48000)
        let frames = try prompt.encodeNow(Self.opusFormat)
        #expect(frames.count == 26, "the last, partial frame is padded")
        let encoder = try OpusEncoder(settings: OpusSettings())
        let padded = samples + [Int16](repeating: 0, count: 26 * 960 - samples.count)
        var expected = [UInt8](repeating: 0, count: 1500)
        var cached = [UInt8](repeating: 0, count: 1500)
        for index in 0..<26 {
            let length = try padded.withUnsafeBufferPointer { all in
                try expected.withUnsafeMutableBytes { try encoder.encode(UnsafeBufferPointer(rebasing: all[(index * 960)..<((index + 1) * 960)]), into: $0) }
            }
            let cachedLength = try #require(cached.withUnsafeMutableBytes { frames.copy(frame: index, into: $0) })
            #expect(cachedLength == length && cached.prefix(length) == expected.prefix(length), "frame \(index)")
        }
        #expect(cached.withUnsafeMutableBytes { frames.copy(frame: 26, into: $0) } == nil)
        #expect(prompt.encodedFormats == [Self.opusFormat])
    }

    @Test func theSourceReadsSampleExactlyAndLendsFramesOnlyWhenAligned() throws {
        let samples = tone(1000, samples: 8000 + 80, rate: 8000)
        let prompt = CachedPrompt(samples: samples, sampleRate: 8000)
        let pcmu = EncodedFrameFormat(codec: .pcmu(), frameMilliseconds: 20)
        try prompt.encodeNow(pcmu)
        let source = prompt.makeSource()
        var frame = [Int16](repeating: 0, count: 160)
        var payload = [UInt8](repeating: 0, count: 1500)
        var reads = 0
        while frame.withUnsafeMutableBufferPointer({ source.read(into: $0) }) {
            #expect(Array(frame.prefix(min(160, samples.count - reads * 160))) == Array(samples[(reads * 160)..<min(samples.count, (reads + 1) * 160)]))
            let length = payload.withUnsafeMutableBytes { source.encodedFrame(pcmu, into: $0) }
            #expect(length == 160)
            // G.711 of the same samples: the cached bytes are the companded prompt.
            #expect(payload[0] == G711.muLawEncode(frame[0]))
            reads += 1
            #expect(reads <= 60)
        }
        #expect(reads == 51)
        #expect(frame.allSatisfy { $0 == 0 }, "an ended source reads silence")
        #expect(payload.withUnsafeMutableBytes { source.encodedFrame(pcmu, into: $0) } == nil, "nothing to lend after the end")

        // 10 ms reads do not line up with 20 ms frames; another rate is another prompt.
        let other = prompt.makeSource()
        var half = [Int16](repeating: 0, count: 80)
        #expect(half.withUnsafeMutableBufferPointer { other.read(into: $0) })
        #expect(payload.withUnsafeMutableBytes { other.encodedFrame(pcmu, into: $0) } == nil)
        #expect(payload.withUnsafeMutableBytes { other.encodedFrame(Self.opusFormat, into: $0) } == nil)
    }

    @Test func aFormatNotYetEncodedIsEncodedInTheBackgroundWhileTheSessionEncodes() throws {
        let prompt = CachedPrompt(samples: tone(440, samples: 9600, rate: 48000), sampleRate: 48000)
        let source = prompt.makeSource()
        var frame = [Int16](repeating: 0, count: 960)
        var payload = [UInt8](repeating: 0, count: 1500)
        #expect(frame.withUnsafeMutableBufferPointer { source.read(into: $0) })
        // Not encoded yet: the session is told to encode this one itself.
        #expect(payload.withUnsafeMutableBytes { source.encodedFrame(Self.opusFormat, into: $0) } == nil)
        #expect(waitUntil(seconds: 10) { prompt.encodedFormats.contains(Self.opusFormat) })
        #expect(frame.withUnsafeMutableBufferPointer { source.read(into: $0) })
        let length = try #require(payload.withUnsafeMutableBytes { source.encodedFrame(Self.opusFormat, into: $0) })
        #expect(length > 10)
    }

    /// A whole session: A plays the cached prompt over DTLS-SRTP, B decodes it.
    @Test func aSessionSendsThePreEncodedFramesAndThePeerHearsThem() throws {
        let prompt = CachedPrompt(samples: tone(600, samples: 48000 * 10, rate: 48000), sampleRate: 48000)
        try prompt.encodeNow(Self.opusFormat)
        let pair = try SessionPair(codec: Self.opus, sourceA: prompt.makeSource(), sourceB: SilenceSource())
        defer { pair.finish() }
        #expect(pair.waitForAudio(seconds: 10, samples: 2 * 48000))
        let sent = pair.a.statistics()
        #expect(sent.packetsSent >= 50)
        #expect(sent.preEncodedFramesSent == sent.packetsSent, "every frame came from the cache")
        #expect(pair.b.statistics().preEncodedFramesSent == 0, "a source with no encoded frames is encoded as before")
        let heard = pair.sinkB.captured
        guard let first = heard.firstIndex(where: { abs(Int($0)) > 500 }), heard.count >= first + 4800 + 48000 / 2 else {
            Issue.record("B heard no prompt")
            return
        }
        let frequency = TestAudio.dominantFrequency(Array(heard[(first + 4800)..<(first + 4800 + 48000 / 2)]), sampleRate: 48000)
        #expect(abs(frequency - 600) <= 5, "B heard \(frequency) Hz")
    }
}
