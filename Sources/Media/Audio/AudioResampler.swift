import CSpeexDSP

/// Whole-buffer sample-rate conversion with speexdsp, for audio prepared before a call plays it
/// (WAV prompts, synthesised speech); never on the media clock.
package enum AudioResampler {
    /// `samples` (mono) at `rate` instead of `sourceRate`, the same length in time.
    package static func resample(_ samples: [Int16], from sourceRate: Int, to rate: Int) throws(AudioError) -> [Int16] {
        guard rate != sourceRate, !samples.isEmpty else { return samples }
        var error: Int32 = 0
        guard let resampler = speex_resampler_init(1, UInt32(sourceRate), UInt32(rate), 6, &error) else {
            throw .resampler("speex_resampler_init error \(error)")
        }
        defer { speex_resampler_destroy(resampler) }
        // Feed the resampler's latency worth of zeros after the audio so the tail comes out too.
        let latency = Int(speex_resampler_get_input_latency(resampler))
        let input = samples + [Int16](repeating: 0, count: latency)
        var output = [Int16](repeating: 0, count: input.count * rate / sourceRate + 64)
        var inputLength = UInt32(input.count)
        var outputLength = UInt32(output.count)
        let status = input.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                speex_resampler_process_int(resampler, 0, input.baseAddress, &inputLength, out.baseAddress, &outputLength)
            }
        }
        guard status == 0 else { throw .resampler("speex_resampler_process_int error \(status)") }
        let skip = min(Int(outputLength), Int(speex_resampler_get_output_latency(resampler)))
        return Array(output[skip..<Int(outputLength)])
    }
}
