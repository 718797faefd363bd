import Media
import Parley

/// A call as a bot drives it: prompts replace what the call sends, recordings tap what it hears.
/// The taps are thread-safe objects, so recording starts and stops at once, in order.
final class CallBotControl: BotCallControl {
    let callID: String
    var remoteParty: String { call.remoteParty }
    let digits: AsyncStream<Character>
    private let call: Call
    private let taps: AudioTaps

    init(call: Call, taps: AudioTaps) {
        self.call = call
        callID = call.id
        digits = call.digits
        self.taps = taps
    }

    func play(_ prompt: BotPrompt) async throws(AudioError) -> Bool {
        let source = try prompt.makeSource(sampleRate: taps.sampleRate)
        return await taps.source.play(source)
    }

    func armBargeIn(onSpeech: @escaping @Sendable () -> Void) {
        taps.source.armStop()
        taps.sink.listen(SpeechOnsetDetector(sampleRate: taps.sampleRate, onset: onSpeech))
    }

    func stopPrompt() { taps.source.stopPrompt() }

    func disarmBargeIn() {
        taps.sink.listen(nil)
        taps.source.disarmStop()
    }

    func startRecording(path: String) throws {
        taps.sink.startRecording(try WAVRecorder(path: path, sampleRate: taps.sampleRate))
    }

    func stopRecording() {
        taps.sink.stopRecording()
    }

    func forward(to destination: String) async -> String? {
        do {
            try await call.transfer(to: destination)
            return nil
        } catch {
            return error.message
        }
    }

    func hangup() async {
        await call.hangup()
    }

    func listen(for sound: BotSound, heard: @escaping @Sendable () -> Void) {
        let rate = taps.sampleRate
        let detector: any ReceivedAudioListener = switch sound {
        case .speech: SpeechOnsetDetector(sampleRate: rate, onset: heard)
        case .silence(let length): SilenceDetector(sampleRate: rate, length: length, heard: heard)
        case .tone(let frequency, let minimum): ToneDetector(sampleRate: rate, frequency: frequency, minimum: minimum, heard: heard)
        }
        taps.sink.listen(detector)
    }

    func stopListening() { taps.sink.listen(nil) }

    func listen(with listener: any ReceivedAudioListener) { taps.sink.listen(listener) }

    var receivedSampleRate: Int { taps.sampleRate }

    func sendDigits(_ digits: String) async throws {
        try await call.sendDTMF(digits)
    }

    func endCause() async -> String {
        let reason = await call.waitUntilDone()
        return reason.cause ?? reason.localStatus?.rawValue ?? "unknown"
    }
}
