import Dispatch
import Foundation
import FuzzSupport
@testable import Drivers

/// Audio and expected texts through the path `parley transcribe --heard` and a `heard:` step
/// take (docs/speech.md): the recording cut into stretches of speech, its free transcript, then
/// the texts spotted in it, on the same decoders. Input: a byte choosing the rate, the texts
/// (newline-separated alternatives) up to the first NUL, then 16-bit little-endian samples.
/// Invariants: a word accuracy from 0 to 1, a keyword among those given, or a typed error;
/// texts with no words score 0.
enum FuzzRecording {
    static let rates = [8000, 16000, 11025, 48000]
    /// One file per fuzzing process, rewritten for each input.
    static let path = FileManager.default.temporaryDirectory.appendingPathComponent("hearing-fuzz-\(getpid()).wav").path
}

/// A mono 16-bit WAV file of `samples`.
func wav(_ samples: ArraySlice<UInt8>, rate: Int) -> Data {
    func little(_ value: Int, _ bytes: Int) -> [UInt8] { (0..<bytes).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    let body = samples.prefix(samples.count & ~1)
    var header = Array("RIFF".utf8) + little(36 + body.count, 4) + Array("WAVEfmt ".utf8) + little(16, 4)
    header += little(1, 2) + little(1, 2) + little(rate, 4) + little(rate * 2, 4) + little(2, 2) + little(16, 2)
    header += Array("data".utf8) + little(body.count, 4)
    return Data(header + body)
}

/// Runs `work` to its end on Swift's executor while the fuzzer's thread waits.
func blocking(_ work: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        await work()
        done.signal()
    }
    done.wait()
}

func fuzzHearing(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    guard let selector = bytes.first else { return 0 }
    let rest = bytes.dropFirst()
    let split = rest.firstIndex(of: 0) ?? rest.endIndex
    let texts = String(decoding: rest[..<split], as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).prefix(16).map(String.init)
    let audio = rest[split...].dropFirst()
    guard (try? wav(audio, rate: FuzzRecording.rates[Int(selector) % FuzzRecording.rates.count]).write(to: URL(fileURLWithPath: FuzzRecording.path))) != nil else { return 0 }
    blocking {
        do {
            let words = try await Transcription.words(inFile: FuzzRecording.path)
            fuzzCheck(words.allSatisfy { !$0.word.isEmpty && $0.start <= $0.end }, "a transcript word without text or with its end before its start")
            let heard = try Transcription.heard(inFile: FuzzRecording.path)
            let accuracy = try await heard.accuracy(of: texts)
            fuzzCheck((0...1).contains(accuracy), "a word accuracy of \(accuracy)")
            if texts.allSatisfy({ WordMatch.words($0).isEmpty }) { fuzzCheck(accuracy == 0, "texts with no words scored \(accuracy)") }
            if let keyword = try await heard.keyword(among: texts) { fuzzCheck(texts.indices.contains(keyword), "keyword \(keyword) of \(texts.count)") }
        } catch {
            // A typed failure fails the step, never the process.
            fuzzCheck(!"\(error)".isEmpty, "an error without a message")
        }
    }
    return 0
}

runFuzzer(fuzzHearing)
