/// A source whose audio may already exist encoded, so that a session sends those bytes instead
/// of running its own encoder on the samples (a bot's prompts, encoded once for every call).
/// Called on the media clock thread right after `read(into:)`; must not block or allocate.
package protocol EncodedAudioSource: AudioSource {
    /// Writes the payload of the frame that the last `read(into:)` filled, encoded as `format`,
    /// and returns its length (0: a DTX frame, nothing to send). Returns nil when no such
    /// encoding is at hand; the session then encodes the samples itself.
    func encodedFrame(_ format: EncodedFrameFormat, into payload: UnsafeMutableRawBufferPointer) -> Int?
}

/// Everything that decides the bytes an encoder makes of a frame: the key under which
/// pre-encoded frames are kept. Two sessions with equal formats can share the same frames.
package struct EncodedFrameFormat: Hashable, Sendable, CustomStringConvertible {
    package enum Codec: Hashable, Sendable {
        case opus(bitrate: Int, maxPlaybackRate: Int, inbandFEC: Bool, dtx: Bool, expectedLossPercent: Int, complexity: Int)
        case pcmu
        case pcma
    }

    package let codec: Codec
    package let sampleRate: Int
    package let frameSamples: Int

    /// `sampleRate`: the PCM rate frames are encoded from (the session's `audioRate`); nil for
    /// the codec's own.
    package init(codec: MediaCodec, frameMilliseconds: Int, sampleRate: Int? = nil) {
        switch codec {
        case .opus(_, let settings):
            self.codec = .opus(bitrate: settings.bitrate, maxPlaybackRate: settings.maxPlaybackRate, inbandFEC: settings.inbandFEC, dtx: settings.dtx,
                               expectedLossPercent: settings.expectedLossPercent, complexity: settings.complexity)
        case .pcmu: self.codec = .pcmu
        case .pcma: self.codec = .pcma
        }
        let rate = sampleRate ?? codec.clockRate
        self.sampleRate = rate
        frameSamples = frameMilliseconds * rate / 1000
    }

    /// A fresh encoder that makes exactly the frames a session with this format would.
    func makeEncoder() throws(CodecError) -> any AudioEncoder {
        switch codec {
        case .opus(let bitrate, let maxPlaybackRate, let inbandFEC, let dtx, let expectedLossPercent, let complexity):
            return try OpusEncoder(settings: OpusSettings(
                bitrate: bitrate, maxPlaybackRate: maxPlaybackRate, inbandFEC: inbandFEC, dtx: dtx, expectedLossPercent: expectedLossPercent,
                frameMilliseconds: frameSamples * 1000 / sampleRate, complexity: complexity), sampleRate: sampleRate)
        case .pcmu: return G711Codec(law: .mu)
        case .pcma: return G711Codec(law: .a)
        }
    }

    package var description: String {
        let name = switch codec {
        case .opus(let bitrate, _, _, _, _, let complexity): "opus \(bitrate / 1000) kb/s complexity \(complexity)"
        case .pcmu: "PCMU"
        case .pcma: "PCMA"
        }
        return "\(name), \(frameSamples * 1000 / sampleRate) ms"
    }
}
