/// ITU-T G.711 µ-law and A-law companding, written from the recommendation's segment tables.
package enum G711 {
    private static let muLawBias: Int32 = 0x84
    private static let muLawClip: Int32 = 32635

    package static func muLawEncode(_ sample: Int16) -> UInt8 {
        var value = Int32(sample)
        let sign: UInt8 = value < 0 ? 0x80 : 0
        if value < 0 { value = -value }
        value = min(value, muLawClip) + muLawBias
        // Segment = position of the highest set bit above bit 7.
        var segment: UInt8 = 7
        var mask: Int32 = 0x4000
        while segment > 0 && value & mask == 0 {
            segment -= 1
            mask >>= 1
        }
        let mantissa = UInt8((value >> (Int32(segment) + 3)) & 0x0F)
        return ~(sign | segment << 4 | mantissa)
    }

    package static func muLawDecode(_ code: UInt8) -> Int16 {
        let inverted = ~code
        let segment = Int32((inverted >> 4) & 0x07)
        let mantissa = Int32(inverted & 0x0F)
        let magnitude = ((mantissa << 3) + muLawBias) << segment - muLawBias
        return Int16(inverted & 0x80 != 0 ? -magnitude : magnitude)
    }

    package static func aLawEncode(_ sample: Int16) -> UInt8 {
        var value = Int32(sample) >> 3  // A-law works on 13-bit magnitudes
        let sign: UInt8 = value >= 0 ? 0x80 : 0
        if value < 0 { value = -value - 1 }
        value = min(value, 0xFFF)
        let code: UInt8
        if value < 32 {
            code = UInt8(value >> 1)
        } else {
            var segment: UInt8 = 1
            var limit: Int32 = 64
            while value >= limit && segment < 7 {
                segment += 1
                limit <<= 1
            }
            code = segment << 4 | UInt8((value >> Int32(segment)) & 0x0F)
        }
        return (sign | code) ^ 0x55
    }

    package static func aLawDecode(_ code: UInt8) -> Int16 {
        let value = code ^ 0x55
        let segment = Int32((value >> 4) & 0x07)
        let mantissa = Int32(value & 0x0F)
        var magnitude = segment == 0 ? (mantissa << 4) + 8 : ((mantissa << 4) + 0x108) << (segment - 1)
        if value & 0x80 == 0 { magnitude = -magnitude }
        return Int16(magnitude)
    }
}

/// PCMU or PCMA at 8 kHz, one byte per sample.
package final class G711Codec: AudioEncoder, AudioDecoder {
    package enum Law: Sendable { case mu, a }

    package let law: Law
    package let sampleRate = 8000
    package let rtpClockRate = 8000
    package let canRecoverFromNextPacket = false
    /// The last decoded frame, replayed with fading gain to conceal losses.
    private var history: UnsafeMutableBufferPointer<Int16>
    private var historyLength = 0
    private var concealedInARow = 0

    package init(law: Law, maxFrameSamples: Int = 960) {
        self.law = law
        history = .allocate(capacity: maxFrameSamples)
        history.initialize(repeating: 0)
    }

    deinit { history.deallocate() }

    package func encode(_ pcm: UnsafeBufferPointer<Int16>, into payload: UnsafeMutableRawBufferPointer) throws(CodecError) -> Int {
        guard payload.count >= pcm.count else { throw .bufferTooSmall(needed: pcm.count, capacity: payload.count) }
        switch law {
        case .mu: for index in pcm.indices { payload[index] = G711.muLawEncode(pcm[index]) }
        case .a: for index in pcm.indices { payload[index] = G711.aLawEncode(pcm[index]) }
        }
        return pcm.count
    }

    package func decode(_ payload: UnsafeRawBufferPointer, into pcm: UnsafeMutableBufferPointer<Int16>) throws(CodecError) -> Int {
        let count = min(payload.count, pcm.count)
        switch law {
        case .mu: for index in 0..<count { pcm[index] = G711.muLawDecode(payload[index]) }
        case .a: for index in 0..<count { pcm[index] = G711.aLawDecode(payload[index]) }
        }
        historyLength = min(count, history.count)
        for index in 0..<historyLength { history[index] = pcm[index] }
        concealedInARow = 0
        return count
    }

    package func recover(lostBefore next: UnsafeRawBufferPointer, into pcm: UnsafeMutableBufferPointer<Int16>) throws(CodecError) -> Int {
        try conceal(into: pcm)
    }

    /// Repeats the last frame at half the level each time; silence after three frames.
    package func conceal(into pcm: UnsafeMutableBufferPointer<Int16>) throws(CodecError) -> Int {
        concealedInARow += 1
        let shift = concealedInARow
        for index in pcm.indices {
            pcm[index] = historyLength > 0 && shift <= 3 ? history[index % historyLength] >> Int16(shift) : 0
        }
        return pcm.count
    }
}
