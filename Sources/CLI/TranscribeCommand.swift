import ArgumentParser
import Drivers
import Foundation
import Parley

/// Shows what the recogniser hears in a recording, to try it before writing a `heard:` step.
struct TranscribeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transcribe",
        abstract: "Print the words in a WAV recording, with their times (offline, pocketsphinx en-us).",
        discussion: """
            Example: parley transcribe welcome.wav --json
            With --heard, also the word accuracy a heard: step would find for that text in the
            recording (docs/speech.md), and exit 6 when it is under --accuracy.
            """
    )

    @Argument(help: ArgumentHelp("The recording: 16-bit PCM WAV, mono or stereo, any rate.", valueName: "FILE.wav"))
    var file: String

    @Flag(help: "Print one JSON object on standard output.")
    var json = false

    @Option(help: ArgumentHelp("Text a heard: step would expect (repeat for alternatives).", valueName: "TEXT"))
    var heard: [String] = []

    @Option(help: ArgumentHelp("The word accuracy --heard needs, more than 0 and at most 1.", valueName: "SHARE"))
    var accuracy = BotHearing.defaultAccuracy

    func validate() throws {
        guard accuracy > 0, accuracy <= 1 else { throw ValidationError("--accuracy must be more than 0 and at most 1") }
        guard heard.allSatisfy({ !WordMatch.words($0).isEmpty }) else { throw ValidationError("--heard needs at least one word") }
    }

    func run() async throws {
        let started = ContinuousClock.now
        let words: [RecognisedWord]
        var match: Double?
        do {
            words = try await Transcription.words(inFile: file)
            if !heard.isEmpty { match = try await Transcription.heard(inFile: file).accuracy(of: heard) }
        } catch {
            // A file that cannot be read earns 66, as `--play` of one does (LocalInputError).
            let unreadable = if case .cannotOpen? = error as? AudioError { true } else { false }
            Diagnostics.fail("error (transcribe): \(error)", json: json, code: "transcribe",
                             status: unreadable ? LocalInputError.unreadableInput : ExitStatus.usage)
        }
        let elapsed = ContinuousClock.now - started
        let usage = SpeechRecognizer.shared.usage
        let text = words.map(\.word).joined(separator: " ")
        if json {
            JSONEvents.emit("transcript", TranscriptPayload(
                path: file, text: text, words: words, heardAccuracy: match, heard: match.map { $0 >= accuracy },
                speechSeconds: usage.audioSeconds, cpuSeconds: usage.cpuSeconds,
                elapsedMilliseconds: Int(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)))
        } else {
            for word in words {
                print(String(format: "%7.2f %7.2f  %@", word.start, word.end, word.word))
            }
            if let match {
                print(String(format: "heard: word accuracy %.2f (needs %.2f): %@", match, accuracy, match >= accuracy ? "heard" : "not heard"))
            }
            Diagnostics.say("\(words.count) words in \(String(format: "%.2f", usage.audioSeconds)) s of speech (recognised in \(String(format: "%.2f", usage.cpuSeconds)) s of CPU)")
        }
        if let match, match < accuracy { throw ExitCode(ExitStatus.botFailed) }
    }
}

private struct TranscriptPayload: Encodable {
    let path: String
    let text: String
    let words: [RecognisedWord]
    let heardAccuracy: Double?
    let heard: Bool?
    let speechSeconds: Double
    let cpuSeconds: Double
    let elapsedMilliseconds: Int
}
