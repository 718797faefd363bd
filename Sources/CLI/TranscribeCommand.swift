import ArgumentParser
import Foundation
import Parley

/// Shows what the recogniser hears in a recording, to try it before writing a `heard:` step.
struct TranscribeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transcribe",
        abstract: "Print the words in a WAV recording, with their times (offline, pocketsphinx en-us).",
        discussion: """
            Example: parley transcribe welcome.wav --json
            The words are what a tester's heard: step compares with its text (docs/speech.md).
            """
    )

    @Argument(help: ArgumentHelp("The recording: 16-bit PCM WAV, mono or stereo, any rate.", valueName: "FILE.wav"))
    var file: String

    @Flag(help: "Print one JSON object on standard output.")
    var json = false

    func run() async throws {
        let started = ContinuousClock.now
        let words: [RecognisedWord]
        do {
            words = try await Transcription.words(inFile: file)
        } catch {
            Diagnostics.fail("error (transcribe): \(error)", json: json, code: "transcribe", status: ExitStatus.usage)
        }
        let elapsed = ContinuousClock.now - started
        let usage = SpeechRecognizer.shared.usage
        let text = words.map(\.word).joined(separator: " ")
        if json {
            JSONEvents.emit("transcript", TranscriptPayload(
                path: file, text: text, words: words, speechSeconds: usage.audioSeconds, cpuSeconds: usage.cpuSeconds,
                elapsedMilliseconds: Int(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)))
        } else {
            for word in words {
                print(String(format: "%7.2f %7.2f  %@", word.start, word.end, word.word))
            }
            Diagnostics.say("\(words.count) words in \(String(format: "%.2f", usage.audioSeconds)) s of speech (recognised in \(String(format: "%.2f", usage.cpuSeconds)) s of CPU)")
        }
    }
}

private struct TranscriptPayload: Encodable {
    let path: String
    let text: String
    let words: [RecognisedWord]
    let speechSeconds: Double
    let cpuSeconds: Double
    let elapsedMilliseconds: Int
}
