/// Finds DTMF tone pairs in decoded audio at any rate (a far end that sends DTMF as sound, on
/// G.711 or Opus) with Goertzel filters on 20 ms blocks. A digit is reported once when two consecutive blocks agree,
/// and again only after a block without it.
package struct InBandDTMFDetector: Sendable {
    static let rows = SIMD4<Double>(697, 770, 852, 941)
    static let columns = SIMD4<Double>(1209, 1336, 1477, 1633)
    static let layout = Array("123A456B789C*0#D")
    static let blockSamples = 160
    package let sampleRate: Int

    /// The row and column filters at the 8 kHz screening rate and at `sampleRate`.
    private let screening: (rows: GoertzelBank, columns: GoertzelBank)
    private let full: (rows: GoertzelBank, columns: GoertzelBank)

    private var candidate: Character?
    private var reported: Character?

    package init(sampleRate: Int = 8000) {
        self.sampleRate = sampleRate
        screening = (GoertzelBank(Self.rows, sampleRate: 8000), GoertzelBank(Self.columns, sampleRate: 8000))
        full = (GoertzelBank(Self.rows, sampleRate: sampleRate), GoertzelBank(Self.columns, sampleRate: sampleRate))
    }

    /// Feeds one block (ideally `blockSamples` long); returns a newly detected digit.
    package mutating func process(_ block: UnsafeBufferPointer<Int16>) -> DTMFDigit? {
        let found = detect(block)
        defer { candidate = found }
        guard let found else {
            reported = nil
            return nil
        }
        guard found == candidate, found != reported else { return nil }
        reported = found
        return DTMFDigit(found)
    }

    private func detect(_ block: UnsafeBufferPointer<Int16>) -> Character? {
        // Every DTMF frequency is below 1.7 kHz, so at a rate that is a multiple of 8 kHz (Opus
        // decodes at 48 kHz) a block averaged down to 8 kHz is screened first, at a sixth of the
        // filter work (the highest tone loses 0.6 dB in the average, well inside the twist
        // allowed below). Only a block that passes is filtered at its own rate, which rejects
        // what the averaging folded onto the tones from above 4 kHz.
        let factor = sampleRate / 8000
        guard factor > 1, sampleRate % 8000 == 0 else { return detect(block, with: full) }
        let count = block.count / factor
        let screened = withUnsafeTemporaryAllocation(of: Int16.self, capacity: max(count, 1)) { decimated in
            // 48 kHz (Opus) with a constant factor, which the compiler unrolls: the averaging was
            // as dear as the eight filters it saves.
            if factor == 6 {
                Self.average(block, by: 6, into: decimated, count: count)
            } else {
                Self.average(block, by: factor, into: decimated, count: count)
            }
            return detect(UnsafeBufferPointer(rebasing: decimated[0..<count]), with: screening)
        }
        guard screened != nil else { return nil }
        return detect(block, with: full)
    }

    @inline(__always)
    private static func average(_ block: UnsafeBufferPointer<Int16>, by factor: Int, into decimated: UnsafeMutableBufferPointer<Int16>, count: Int) {
        for index in 0..<count {
            var sum: Int32 = 0
            for offset in 0..<factor { sum &+= Int32(block[index &* factor &+ offset]) }
            decimated[index] = Int16(truncatingIfNeeded: sum / Int32(factor))
        }
    }

    private func detect(_ block: UnsafeBufferPointer<Int16>, with banks: (rows: GoertzelBank, columns: GoertzelBank)) -> Character? {
        guard block.count >= 80 else { return nil }
        // Summed as integers, which the compiler may add in any order (vectorised); a block's
        // sum of squares stays far below 2^53, so as a Double it is exact, as the sum was.
        var squares: Int64 = 0
        for sample in block { squares &+= Int64(sample) &* Int64(sample) }
        let energy = Double(squares)
        // Below about -45 dBov nothing is a digit.
        guard energy / Double(block.count) > 180 * 180 else { return nil }
        func strongest(_ bank: GoertzelBank) -> (index: Int, power: Double, runnerUp: Double) {
            let powers = bank.powers(in: block)
            var best = (index: 0, power: -1.0, runnerUp: -1.0)
            for index in 0..<4 {
                let power = powers[index]
                if power > best.power {
                    best = (index, power, best.power)
                } else if power > best.runnerUp {
                    best.runnerUp = power
                }
            }
            return best
        }
        // A pure tone of power P gives a Goertzel power of about N·P·N/2 against energy N·P.
        let scale = Double(block.count) * energy
        // Ordinary audio (speech, a prompt) rarely has a row tone: its four filters (one pass of a
        // bank) alone settle most blocks, half the filter work of a call that decodes.
        let row = strongest(banks.rows)
        let rowShare = row.power / scale
        guard rowShare > 0.08 else { return nil }
        let column = strongest(banks.columns)
        let columnShare = column.power / scale
        guard columnShare > 0.08, rowShare + columnShare > 0.35 else { return nil }
        // Twist: the two tones within 8 dB of each other; each clearly above its neighbours.
        guard row.power < column.power * 6.3, column.power < row.power * 6.3 else { return nil }
        guard row.runnerUp * 6 < row.power, column.runnerUp * 6 < column.power else { return nil }
        return Self.layout[row.index * 4 + column.index]
    }
}
