import CPocketSphinx
import Foundation

/// A word the recogniser heard, with its times in seconds from the start of the audio.
public struct RecognisedWord: Sendable, Equatable, Codable {
    public var word: String
    public var start: Double
    public var end: Double

    public init(word: String, start: Double, end: Double) {
        self.word = word
        self.start = start
        self.end = end
    }
}

public enum RecognitionError: Error, Sendable, Equatable, CustomStringConvertible {
    case modelMissing(String)
    case decoder(String)

    public var description: String {
        switch self {
        case .modelMissing(let path):
            "the speech model is not installed (looked for \(path)); install pocketsphinx-en-us (scripts/bootstrap)"
        case .decoder(let reason): "speech recognition failed: \(reason)"
        }
    }
}

/// One pocketsphinx decoder (0.8+5prealpha, Debian's libpocketsphinx3) with the en-us model and
/// its general language model. Not thread-safe: `SpeechRecognizer` lends it to one job at a time.
/// Unchecked: a pocketsphinx decoder (a C pointer) lent to one job at a time by `SpeechRecognizer`.
final class SpeechDecoder: @unchecked Sendable {
    static let modelDirectory = "/usr/share/pocketsphinx/model/en-us"
    /// The decoder's rate: the en-us acoustic model is wideband.
    static let sampleRate = 16000
    /// pocketsphinx reports times in frames of 10 ms.
    static let framesPerSecond = 100.0

    private let decoder: OpaquePointer

    /// The model's files, checked before a script that listens for words is accepted.
    static func checkModel() throws(RecognitionError) {
        let directory = modelDirectory
        for path in [directory + "/en-us/mdef", directory + "/en-us.lm.bin", directory + "/cmudict-en-us.dict"]
        where !FileManager.default.isReadableFile(atPath: path) {
            throw .modelMissing(path)
        }
    }

    init() throws(RecognitionError) {
        try Self.checkModel()
        let directory = Self.modelDirectory
        let hmm = directory + "/en-us", lm = directory + "/en-us.lm.bin", dict = directory + "/cmudict-en-us.dict"
        guard let config = parley_ps_config(hmm, lm, dict) else { throw .decoder("cannot configure the decoder") }
        guard let decoder = ps_init(config) else {
            cmd_ln_free_r(config)
            throw .decoder("cannot load the model in \(directory)")
        }
        // ps_init holds its own reference to the configuration.
        cmd_ln_free_r(config)
        self.decoder = decoder
    }

    deinit { ps_free(decoder) }

    /// The words in `samples` (mono, 16 kHz), as one utterance; fillers and silences left out.
    func decode(_ samples: [Int16]) throws(RecognitionError) -> [RecognisedWord] {
        guard ps_start_utt(decoder) == 0 else { throw .decoder("cannot start an utterance") }
        let processed = samples.withUnsafeBufferPointer { buffer in
            ps_process_raw(decoder, buffer.baseAddress, buffer.count, 0, 1)
        }
        guard ps_end_utt(decoder) == 0, processed >= 0 else { throw .decoder("cannot decode the audio") }
        var words: [RecognisedWord] = []
        var segment = ps_seg_iter(decoder)
        // Bounded by the utterance: at most one word per 10 ms frame.
        while let current = segment, words.count <= samples.count / 160 {
            if let raw = ps_seg_word(current), let word = Self.spoken(String(cString: raw)) {
                var first: Int32 = 0, last: Int32 = 0
                ps_seg_frames(current, &first, &last)
                words.append(RecognisedWord(word: word, start: Double(first) / Self.framesPerSecond,
                                            end: Double(last + 1) / Self.framesPerSecond))
            }
            segment = ps_seg_next(current)
        }
        if let segment { ps_seg_free(segment) }
        return words
    }

    /// A dictionary entry as a word: nil for silences and fillers (`<sil>`, `[NOISE]`), and
    /// without the pronunciation variant (`for(2)`).
    static func spoken(_ entry: String) -> String? {
        guard let first = entry.first, first != "<", first != "[", first != "+" else { return nil }
        return entry.firstIndex(of: "(").map { String(entry[..<$0]) } ?? entry
    }
}
