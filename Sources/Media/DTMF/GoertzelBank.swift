/// Four Goertzel filters (`Goertzel.power`) run over a block in one pass. Each filter's step
/// waits on its previous step's multiply and add, so one filter at a time leaves the processor
/// idle between steps; four independent recurrences side by side fill those gaps. Each lane does
/// the same arithmetic in the same order as `Goertzel.power`, so the powers are the same, bit
/// for bit. The coefficients (a cosine each) are worked out once, not once per block.
package struct GoertzelBank: Sendable {
    package let coefficients: SIMD4<Double>

    package init(_ frequencies: SIMD4<Double>, sampleRate: Int) {
        var coefficients = SIMD4<Double>()
        for lane in 0..<4 { coefficients[lane] = Goertzel.coefficient(of: frequencies[lane], sampleRate: sampleRate) }
        self.coefficients = coefficients
    }

    package func powers(in samples: UnsafeBufferPointer<Int16>) -> SIMD4<Double> {
        var previous = SIMD4<Double>()
        var beforePrevious = SIMD4<Double>()
        for sample in samples {
            let current = SIMD4(repeating: Double(sample)) + coefficients * previous - beforePrevious
            beforePrevious = previous
            previous = current
        }
        return previous * previous + beforePrevious * beforePrevious - coefficients * previous * beforePrevious
    }
}
