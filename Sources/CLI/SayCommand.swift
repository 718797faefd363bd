import ArgumentParser
import Drivers
import Foundation
import Media
import Parley

/// Speaks text with the voice a bot's `say` prompt would use, into a WAV file, to try a voice.
struct SayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "say",
        abstract: "Speak text with espeak-ng into a WAV file, as a bot's say prompt would.",
        discussion: """
            Example: parley say "Welcome to Parley. Press 1 for sales." --voice en-gb --rate 160 --output welcome.wav
            """
    )

    @Argument(help: "The text to speak.")
    var text: String

    @Option(help: ArgumentHelp("The WAV file to write (16-bit mono).", valueName: "FILE.wav"))
    var output: String

    @Option(help: ArgumentHelp("An espeak-ng voice or language, such as en-gb (an unknown one is refused with the list of languages).", valueName: "VOICE"))
    var voice = Speech.defaultVoice

    @Option(help: ArgumentHelp("Words a minute, \(Speech.rates.lowerBound)-\(Speech.rates.upperBound).", valueName: "WPM"))
    var rate = Speech.defaultRate

    @Option(help: ArgumentHelp("Pitch, \(Speech.pitches.lowerBound)-\(Speech.pitches.upperBound); 50 is the voice's own.", valueName: "N"))
    var pitch = Speech.defaultPitch

    @Option(name: .customLong("sample-rate"), help: ArgumentHelp("Samples a second: 8000 (G.711), 16000 or 48000 (Opus).", valueName: "HZ"))
    var sampleRate = 48000

    @Flag(help: "Print one JSON object on standard output.")
    var json = false

    func validate() throws {
        guard !text.isEmpty, text.count <= Speech.maximumLength else {
            throw ValidationError("the text must be 1 to \(Speech.maximumLength) characters")
        }
        guard output.lowercased().hasSuffix(".wav") else { throw ValidationError("--output must name a .wav file, not \"\(output)\"") }
        guard Speech.rates.contains(rate) else { throw ValidationError("--rate must be \(Speech.rates.lowerBound)-\(Speech.rates.upperBound), not \(rate)") }
        guard Speech.pitches.contains(pitch) else { throw ValidationError("--pitch must be \(Speech.pitches.lowerBound)-\(Speech.pitches.upperBound), not \(pitch)") }
        guard [8000, 16000, 48000].contains(sampleRate) else { throw ValidationError("--sample-rate must be 8000, 16000 or 48000, not \(sampleRate)") }
    }

    func run() throws {
        let speech = Speech(text, voice: voice, rate: rate, pitch: pitch)
        let started = ContinuousClock.now
        let samples: [Int16]
        do {
            try SpeechSynthesizer.shared.checkVoice(voice)
            samples = try SpeechSynthesizer.shared.audio(speech, sampleRate: sampleRate)
            let recorder = try WAVRecorder(path: output, sampleRate: sampleRate)
            samples.withUnsafeBufferPointer { recorder.write(remote: $0, local: $0) }
            recorder.close()
        } catch {
            Diagnostics.fail("error (audio): \(error)", json: json, code: "audio", status: ExitStatus.usage)
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(samples.count) / Double(sampleRate)
        let milliseconds = Int((Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) * 1000)
        if json {
            JSONEvents.emit("said", SaidPayload(path: output, seconds: seconds, sampleRate: sampleRate, synthesisMilliseconds: milliseconds))
        } else {
            Diagnostics.say("wrote \(output): \(String(format: "%.2f", seconds)) s at \(sampleRate) Hz (spoken in \(milliseconds) ms)")
        }
    }
}

private struct SaidPayload: Encodable {
    let path: String
    let seconds: Double
    let sampleRate: Int
    let synthesisMilliseconds: Int
}
