import CSpeexDSP

/// Sample-rate conversion of a stream, frame by frame, for one thread (a call's media clock):
/// speexdsp keeps the filter state between frames, and nothing is allocated after `init`. The
/// filter's delay is kept (no skipped zeros), so every whole frame in gives a whole frame out:
/// 20 ms at 48 kHz is always 320 samples at 16 kHz, never 319 now and 321 later, and a queue
/// after it never holds a partial frame that waits a tick.
package final class StreamResampler {
    private let state: OpaquePointer?
    package let inputRate: Int
    package let outputRate: Int

    /// nil state when the rates are equal: `process` then copies.
    package init(from inputRate: Int, to outputRate: Int) throws(AudioError) {
        self.inputRate = inputRate
        self.outputRate = outputRate
        guard inputRate != outputRate else {
            state = nil
            return
        }
        var error: Int32 = 0
        guard let state = speex_resampler_init(1, UInt32(inputRate), UInt32(outputRate), 3, &error) else {
            throw .resampler("speex_resampler_init error \(error)")
        }
        self.state = state
    }

    deinit { if let state { speex_resampler_destroy(state) } }

    /// Converts all of `input` into `output`; returns how many samples it wrote (at most
    /// `output.count`, which should allow `input.count * outputRate / inputRate + 16`).
    package func process(_ input: UnsafeBufferPointer<Int16>, into output: UnsafeMutableBufferPointer<Int16>) -> Int {
        guard let state else {
            let count = min(input.count, output.count)
            for index in 0..<count { output[index] = input[index] }
            return count
        }
        var inputLength = UInt32(input.count)
        var outputLength = UInt32(output.count)
        speex_resampler_process_int(state, 0, input.baseAddress, &inputLength, output.baseAddress, &outputLength)
        return Int(outputLength)
    }
}
