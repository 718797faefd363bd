import Foundation
import Media
import Parley

extension CallPresenter {
    /// At the end of a call that used the microphone or the speaker, the delay the audio spent
    /// on this side (docs/audio.md, "Latency"): mouth-to-wire is the capture delay plus the
    /// encoder's look-ahead, wire-to-ear the jitter buffer plus the playback delay.
    func deviceDelays(_ call: String, statistics: CallStatistics) {
        let delays = DeviceDelays.shared
        guard delays.captureMilliseconds != nil || delays.playbackMilliseconds != nil, let audio = statistics.audio else { return }
        // libopus's look-ahead for 20 ms VoIP frames is 6.5 ms (OPUS_GET_LOOKAHEAD); G.711 has none.
        let encoder = audio.codec.lowercased().hasPrefix("opus") ? 6.5 : 0
        let payload = DeviceDelayPayload(
            call: call,
            mouthToWireMs: delays.captureMilliseconds.map { Self.rounded($0 + encoder) },
            captureMs: delays.captureMilliseconds.map(Self.rounded), captureDeviceMs: delays.captureDeviceMilliseconds.map(Self.rounded),
            captureQueuedMs: delays.captureQueuedMilliseconds.map(Self.rounded),
            encoderMs: encoder,
            wireToEarMs: delays.playbackMilliseconds.map { Self.rounded($0 + audio.jitterBufferDelayMs) },
            jitterBufferMs: Self.rounded(audio.jitterBufferDelayMs), playbackMs: delays.playbackMilliseconds.map(Self.rounded))
        if json {
            JSONEvents.emit("audio-delay", payload)
        } else {
            let mouth = payload.mouthToWireMs.map { String(format: "mouth-to-wire %.1f ms", $0) }
            let ear = payload.wireToEarMs.map { String(format: "wire-to-ear %.1f ms", $0) }
            note("  audio delay: " + [mouth, ear].compactMap { $0 }.joined(separator: ", "))
        }
    }
}

private struct DeviceDelayPayload: Encodable {
    let call: String
    let mouthToWireMs: Double?
    let captureMs: Double?
    let captureDeviceMs: Double?
    let captureQueuedMs: Double?
    let encoderMs: Double
    let wireToEarMs: Double?
    let jitterBufferMs: Double
    let playbackMs: Double?
}
