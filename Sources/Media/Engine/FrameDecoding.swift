/// The received side's decoder on the clock thread: what one playout decision makes of a frame's
/// payload (copied out of the jitter buffer, so that it is decoded after the receive side's lock
/// is released), into `output`. A session that does not decode (`decodesAudio` false) has none:
/// each decision then stands for a frame's worth of samples, without making them.
///
/// Owned by one session and used under its clock lock; its buffers are allocated once, here.
final class FrameDecoding {
    private let decoder: (any AudioDecoder)?
    /// Where the jitter buffer copies a frame's payload; nil when nothing is decoded.
    let payload: UnsafeMutableRawBufferPointer?
    private let decoded: UnsafeMutableBufferPointer<Int16>
    /// Samples in one of the far end's frames, at the session's rate.
    let frameSamples: Int

    /// `maximumPayload`: the jitter buffer's largest payload. A decoder's output holds 120 ms,
    /// the longest packet, at `sampleRate`.
    init(decoder: (any AudioDecoder)?, maximumPayload: Int, sampleRate: Int, frameSamples: Int) {
        self.decoder = decoder
        self.frameSamples = frameSamples
        payload = decoder == nil ? nil : .allocate(byteCount: maximumPayload, alignment: 16)
        decoded = .allocate(capacity: decoder == nil ? 1 : sampleRate * 120 / 1000)
        decoded.initialize(repeating: 0)
    }

    deinit {
        payload?.deallocate()
        decoded.deallocate()
    }

    var decodes: Bool { decoder != nil }

    /// Whether a lost frame can be rebuilt from the packet after it (Opus in-band FEC).
    var wantsNextPacket: Bool { decoder?.canRecoverFromNextPacket ?? false }

    /// The samples the last `produce` made.
    var output: UnsafePointer<Int16> { UnsafePointer(decoded.baseAddress!) }

    /// The samples for one decision other than silence, and whether they were made up (FEC,
    /// concealment, or a frame that did not decode).
    func produce(_ decision: ConcealmentPolicy.Decision) -> (samples: Int, concealed: Bool) {
        guard let decoder, let payload else {
            if case .decode = decision { return (frameSamples, false) }
            return (frameSamples, true)
        }
        switch decision {
        case .decode(let length):
            let produced = (try? decoder.decode(UnsafeRawBufferPointer(rebasing: payload[0..<length]), into: decoded)) ?? 0
            return produced > 0 ? (produced, false) : (conceal(decoder), true)
        case .recover(let nextLength):
            var produced = 0
            if let nextLength {
                let next = UnsafeRawBufferPointer(rebasing: payload[0..<nextLength])
                produced = (try? decoder.recover(lostBefore: next, into: UnsafeMutableBufferPointer(rebasing: decoded[0..<frameSamples]))) ?? 0
            }
            return (produced > 0 ? produced : conceal(decoder), true)
        case .stretch:
            return (conceal(decoder), true)
        case .silence:
            return (0, false)
        }
    }

    private func conceal(_ decoder: any AudioDecoder) -> Int {
        (try? decoder.conceal(into: UnsafeMutableBufferPointer(rebasing: decoded[0..<frameSamples]))) ?? 0
    }
}
