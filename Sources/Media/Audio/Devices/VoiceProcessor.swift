import VoiceProcessingBridge

/// Echo cancellation, noise suppression and gain control for one call's microphone, by WebRTC's
/// audio processing library. Used only on the media clock thread: the speaker sink hands it what
/// it plays, the microphone source what it captured, in 10 ms chunks.
final class VoiceProcessor {
    private let processor: OpaquePointer
    private let chunk: Int
    /// Milliseconds between a sample reaching `analyzeRender` and its echo reaching
    /// `processCapture`, as the speaker and microphone buffers stand (set by the speaker).
    var echoDelayMilliseconds = 0

    /// Nil when nothing is asked for; throws when the library cannot run at this rate.
    static func make(sampleRate: Int, processing: VoiceProcessing) throws(AudioError) -> VoiceProcessor? {
        guard processing != .none else { return nil }
        guard let processor = parley_voice_processor_create(
            Int32(sampleRate), processing.echoCancellation ? 1 : 0, processing.noiseSuppression ? 1 : 0, processing.gainControl ? 1 : 0)
        else { throw .voiceProcessing("WebRTC audio processing does not run at \(sampleRate) Hz") }
        return VoiceProcessor(processor)
    }

    private init(_ processor: OpaquePointer) {
        self.processor = processor
        chunk = Int(parley_voice_processor_chunk(processor))
    }

    deinit { parley_voice_processor_destroy(processor) }

    func analyzeRender(_ samples: UnsafeBufferPointer<Int16>) {
        var offset = 0
        while offset + chunk <= samples.count {
            _ = parley_voice_processor_analyze_render(processor, samples.baseAddress! + offset)
            offset += chunk
        }
    }

    func processCapture(_ samples: UnsafeMutableBufferPointer<Int16>) {
        var offset = 0
        while offset + chunk <= samples.count {
            _ = parley_voice_processor_process_capture(processor, samples.baseAddress! + offset, Int32(echoDelayMilliseconds))
            offset += chunk
        }
    }
}
