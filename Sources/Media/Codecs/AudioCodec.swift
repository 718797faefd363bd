/// Why a codec could not be made or could not code a frame.
package enum CodecError: Error, Sendable, Equatable, CustomStringConvertible {
    case unsupported(String)
    case library(function: String, code: Int32)
    case invalidFrameSize(samples: Int, expected: Int)
    case bufferTooSmall(needed: Int, capacity: Int)

    package var description: String {
        switch self {
        case .unsupported(let what): "unsupported codec configuration: \(what)"
        case .library(let function, let code): "\(function) failed with code \(code)"
        case .invalidFrameSize(let samples, let expected): "frame of \(samples) samples where \(expected) were expected"
        case .bufferTooSmall(let needed, let capacity): "output buffer of \(capacity) too small, \(needed) needed"
        }
    }
}

/// Turns mono 16-bit PCM frames into RTP payloads. Used from the media clock thread only.
package protocol AudioEncoder: AnyObject {
    /// PCM sample rate the encoder takes (also the session's internal rate).
    var sampleRate: Int { get }
    /// RTP timestamp units per second (48000 for Opus whatever it codes internally).
    var rtpClockRate: Int { get }
    /// Encodes exactly one frame; returns the payload length. Zero means "nothing to send"
    /// (Opus DTX during silence).
    func encode(_ pcm: UnsafeBufferPointer<Int16>, into payload: UnsafeMutableRawBufferPointer) throws(CodecError) -> Int
    /// Spend no more effort than `ceiling` (0-10, Opus's complexity scale) on the frames from now
    /// on, never more than the encoder was made with. A codec with no such setting ignores it.
    func limitComplexity(to ceiling: Int)
}

extension AudioEncoder {
    package func limitComplexity(to ceiling: Int) {}
}

/// Turns RTP payloads back into mono 16-bit PCM and hides losses.
package protocol AudioDecoder: AnyObject {
    var sampleRate: Int { get }
    /// Decodes one payload; returns the samples written.
    func decode(_ payload: UnsafeRawBufferPointer, into pcm: UnsafeMutableBufferPointer<Int16>) throws(CodecError) -> Int
    /// Whether `recover` can use the packet after a lost one (Opus in-band FEC).
    var canRecoverFromNextPacket: Bool { get }
    /// Rebuilds the lost frame before `next` from redundancy carried in `next`, or conceals it.
    func recover(lostBefore next: UnsafeRawBufferPointer, into pcm: UnsafeMutableBufferPointer<Int16>) throws(CodecError) -> Int
    /// Fills `pcm` with a guess at the missing audio (packet loss concealment).
    func conceal(into pcm: UnsafeMutableBufferPointer<Int16>) throws(CodecError) -> Int
}
