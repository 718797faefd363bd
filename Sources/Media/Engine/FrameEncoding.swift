/// The payload of each frame a session sends: pre-encoded by the source when it can serve the
/// session's format (a bot's cached prompts, frames as long as a tick), else from the session's
/// own encoder, made on the first frame that needs it, so that a session fed only pre-encoded
/// frames never runs one. The encoder spends no more Opus complexity than its clock allows
/// (`EncoderLoadGovernor`) when the configuration follows the clock.
///
/// Owned by one session and used under its clock lock.
final class FrameEncoding {
    struct Payload: Equatable {
        /// Bytes written; 0 is a DTX frame, nothing to send.
        var length: Int
        /// The source handed the frame encoded.
        var preEncoded: Bool
    }

    private var encoder: (any AudioEncoder)?
    private var encoderFailed = false
    private let encodedSource: (any EncodedAudioSource)?
    /// The format a pre-encoded source is asked for; nil when its frames cannot be ours.
    private let encodedFormat: EncodedFrameFormat?
    /// What our own encoder makes: the codec at the session's PCM rate.
    private let ownFormat: EncodedFrameFormat
    private let followsClockComplexity: Bool
    /// What the clock allows this tick; the encoder ignores a ceiling it already has.
    var complexityCeiling = EncoderLoadGovernor.highest

    /// `sourceServesTicks`: a frame is one tick long, so every frame is exactly one read of the
    /// source and a pre-encoded source can serve it.
    init(format: EncodedFrameFormat, source: any AudioSource, sourceServesTicks: Bool, followsClockComplexity: Bool) throws(MediaSessionError) {
        ownFormat = format
        encodedSource = source as? any EncodedAudioSource
        encodedFormat = sourceServesTicks ? format : nil
        self.followsClockComplexity = followsClockComplexity
        if encodedSource == nil {
            do {
                encoder = try format.makeEncoder()
            } catch {
                throw .codec(error)
            }
        }
    }

    /// The Opus complexity our own encoder uses now; nil before it has one (or when it codes
    /// something else).
    var opusComplexity: Int? { (encoder as? OpusEncoder)?.complexity }

    /// The payload of the frame `pcm` (the source's last read); nil when it cannot be encoded.
    /// A muted frame is silence, never the source's pre-encoded audio.
    func encode(_ pcm: UnsafeBufferPointer<Int16>, muted: Bool, into payload: UnsafeMutableRawBufferPointer) -> Payload? {
        if !muted, let encodedFormat, let encodedSource, let length = encodedSource.encodedFrame(encodedFormat, into: payload) {
            return Payload(length: length, preEncoded: true)
        }
        if encoder == nil, !encoderFailed {
            encoder = try? ownFormat.makeEncoder()
            encoderFailed = encoder == nil
        }
        guard let encoder else { return nil }
        if followsClockComplexity { encoder.limitComplexity(to: complexityCeiling) }
        guard let length = try? encoder.encode(pcm, into: payload) else { return nil }
        return Payload(length: length, preEncoded: false)
    }
}
