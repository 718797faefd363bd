import COpus

/// Opus, mono, through libopus, taking PCM at 48 kHz or at any rate libopus codes natively
/// (8, 12, 16, 24 kHz: an agent's rate, docs/agents.md); the stream it makes is Opus as any
/// other, with the 48 kHz RTP clock of RFC 7587.
package final class OpusEncoder: AudioEncoder {
    package let sampleRate: Int
    package let rtpClockRate = 48000
    package let settings: OpusSettings
    private let encoder: OpaquePointer
    /// The complexity frames are encoded with now: `settings.complexity` until a clock under
    /// load lowers it (`limitComplexity`).
    package private(set) var complexity: Int

    package init(settings: OpusSettings = OpusSettings(), sampleRate: Int = 48000) throws(CodecError) {
        guard MediaCodec.opusAudioRates.contains(sampleRate) else { throw .unsupported("Opus at \(sampleRate) Hz") }
        var error: Int32 = 0
        guard let encoder = opus_encoder_create(Int32(sampleRate), 1, OPUS_APPLICATION_VOIP, &error), error == OPUS_OK else {
            throw .library(function: "opus_encoder_create", code: error)
        }
        self.encoder = encoder
        self.sampleRate = sampleRate
        self.settings = settings
        complexity = settings.complexity
        do {
            try OpusControl.set(encoder, OPUS_SET_BITRATE_REQUEST, Int32(settings.bitrate), name: "bitrate")
            try OpusControl.set(encoder, OPUS_SET_MAX_BANDWIDTH_REQUEST, Self.bandwidth(forPlaybackRate: settings.maxPlaybackRate), name: "max bandwidth")
            try OpusControl.set(encoder, OPUS_SET_INBAND_FEC_REQUEST, settings.inbandFEC ? 1 : 0, name: "inband FEC")
            try OpusControl.set(encoder, OPUS_SET_PACKET_LOSS_PERC_REQUEST, Int32(settings.expectedLossPercent), name: "packet loss")
            try OpusControl.set(encoder, OPUS_SET_DTX_REQUEST, settings.dtx ? 1 : 0, name: "DTX")
            try OpusControl.set(encoder, OPUS_SET_COMPLEXITY_REQUEST, Int32(settings.complexity), name: "complexity")
            try OpusControl.set(encoder, OPUS_SET_SIGNAL_REQUEST, OPUS_SIGNAL_VOICE, name: "signal")
        } catch {
            opus_encoder_destroy(encoder)
            throw error
        }
    }

    deinit { opus_encoder_destroy(encoder) }

    package var frameSamples: Int { settings.frameMilliseconds * sampleRate / 1000 }

    package func limitComplexity(to ceiling: Int) {
        let wanted = max(OpusSettings.complexityRange.lowerBound, min(settings.complexity, ceiling))
        guard wanted != complexity else { return }
        // A value in 0...10 on a live encoder: libopus cannot refuse it, so there is nothing to report.
        guard (try? OpusControl.set(encoder, OPUS_SET_COMPLEXITY_REQUEST, Int32(wanted), name: "complexity")) != nil else { return }
        complexity = wanted
    }

    static func bandwidth(forPlaybackRate rate: Int) -> Int32 {
        switch rate {
        case ..<12000: OPUS_BANDWIDTH_NARROWBAND
        case ..<16000: OPUS_BANDWIDTH_MEDIUMBAND
        case ..<24000: OPUS_BANDWIDTH_WIDEBAND
        case ..<48000: OPUS_BANDWIDTH_SUPERWIDEBAND
        default: OPUS_BANDWIDTH_FULLBAND
        }
    }

    package func encode(_ pcm: UnsafeBufferPointer<Int16>, into payload: UnsafeMutableRawBufferPointer) throws(CodecError) -> Int {
        // 2.5, 5, 10, 20, 40 or 60 ms: the frame sizes libopus takes, in samples at our rate.
        guard pcm.count * 400 % sampleRate == 0, [1, 2, 4, 8, 16, 24].contains(pcm.count * 400 / sampleRate) else {
            throw .invalidFrameSize(samples: pcm.count, expected: frameSamples)
        }
        guard let input = pcm.baseAddress, let output = payload.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw .bufferTooSmall(needed: 1, capacity: 0)
        }
        let written = opus_encode(encoder, input, Int32(pcm.count), output, Int32(payload.count))
        guard written >= 0 else { throw .library(function: "opus_encode", code: written) }
        // RFC 7587 §3.1.3 / libopus: a packet of two bytes or less is DTX and need not be sent.
        return settings.dtx && written <= 2 ? 0 : Int(written)
    }
}

/// Decodes any Opus stream to PCM at `sampleRate` (48 kHz, or a rate libopus decodes to
/// natively: it band-limits and decimates inside the codec, cheaper than decoding at 48 kHz and
/// resampling after).
package final class OpusDecoder: AudioDecoder {
    package let sampleRate: Int
    package let canRecoverFromNextPacket = true
    private let decoder: OpaquePointer

    package init(sampleRate: Int = 48000) throws(CodecError) {
        guard MediaCodec.opusAudioRates.contains(sampleRate) else { throw .unsupported("Opus at \(sampleRate) Hz") }
        var error: Int32 = 0
        guard let decoder = opus_decoder_create(Int32(sampleRate), 1, &error), error == OPUS_OK else {
            throw .library(function: "opus_decoder_create", code: error)
        }
        self.decoder = decoder
        self.sampleRate = sampleRate
    }

    deinit { opus_decoder_destroy(decoder) }

    package func decode(_ payload: UnsafeRawBufferPointer, into pcm: UnsafeMutableBufferPointer<Int16>) throws(CodecError) -> Int {
        try run(payload, pcm, fec: false)
    }

    /// Decodes the FEC copy of the lost frame that `next` carries; libopus falls back to PLC when
    /// `next` has none. `pcm.count` must be the lost frame's duration.
    package func recover(lostBefore next: UnsafeRawBufferPointer, into pcm: UnsafeMutableBufferPointer<Int16>) throws(CodecError) -> Int {
        try run(next, pcm, fec: true)
    }

    package func conceal(into pcm: UnsafeMutableBufferPointer<Int16>) throws(CodecError) -> Int {
        try run(UnsafeRawBufferPointer(start: nil, count: 0), pcm, fec: false)
    }

    private func run(_ payload: UnsafeRawBufferPointer, _ pcm: UnsafeMutableBufferPointer<Int16>, fec: Bool) throws(CodecError) -> Int {
        let data = payload.count > 0 ? payload.baseAddress?.assumingMemoryBound(to: UInt8.self) : nil
        guard let output = pcm.baseAddress else { throw .bufferTooSmall(needed: 120, capacity: 0) }
        let samples = opus_decode(decoder, data, Int32(payload.count), output, Int32(pcm.count), fec ? 1 : 0)
        guard samples >= 0 else { throw .library(function: "opus_decode", code: samples) }
        return Int(samples)
    }
}
