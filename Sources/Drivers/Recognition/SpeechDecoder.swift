import CPocketSphinx
import Foundation
import Parley

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
    /// The language-model search `ps_init` made, to go back to after spotting phrases.
    private let freeSearch: String
    /// Phones per dictionary word, for the words phrases were spotted with.
    private var phoneCounts: [String: Int?] = [:]

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
        freeSearch = ps_get_search(decoder).map { String(cString: $0) } ?? "_default"
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

    /// How well each of `phrases` (lower-case dictionary words, one space apart) is spoken
    /// somewhere in `samples` (mono, 16 kHz), decoded against the phrases themselves rather than
    /// the general language model: keyword spotting, each phrase scored against a loop of
    /// any phones (Sources/Drivers/Recognition/PhraseSpotter.swift). The best score of each
    /// phrase found, per phone; phrases with a word the dictionary lacks are never found.
    func spot(_ samples: [Int16], phrases: [String]) throws(RecognitionError) -> [String: Double] {
        let known = phrases.compactMap { phrase in phones(in: phrase).map { (phrase, $0) } }
        guard !known.isEmpty else { return [:] }
        let phoneCount = Dictionary(known, uniquingKeysWith: { first, _ in first })
        let lines = phoneCount.keys.sorted().joined(separator: "\n") + "\n"
        guard parley_ps_set_phrases(decoder, PhraseSpotter.searchName, lines, PhraseSpotter.beam, PhraseSpotter.beam) == 0,
              ps_set_search(decoder, PhraseSpotter.searchName) == 0 else {
            ps_set_search(decoder, freeSearch)
            throw .decoder("cannot make the phrase search")
        }
        defer { ps_set_search(decoder, freeSearch) }
        // Quiet either side: the spotter reports a phrase a few frames after its end.
        let padding = [Int16](repeating: 0, count: Self.sampleRate / 2)
        let padded = padding + samples + padding
        // The streaming feature code normalises by a mean cepstrum it carries from utterance to
        // utterance: a fresh decoder's is the model's, a used one's that of whatever it heard
        // last (another voice, a telephone band). Either way a phrase can score lower than on a
        // decoder that has heard this line: "thank you for calling northwind bank" did after a
        // narrowband job (PronunciationTests). So up to two seconds of the audio are heard first,
        // unscored, to learn this line's mean.
        try hear(Array(samples.prefix(2 * Self.sampleRate)))
        try hear(padded)
        var best: [String: Double] = [:]
        var segment = ps_seg_iter(decoder)
        // Bounded by the utterance: at most one detection per phrase per 10 ms frame.
        var seen = 0
        while let current = segment, seen <= padded.count / 160 * max(1, known.count) {
            seen += 1
            if let raw = ps_seg_word(current) {
                let phrase = String(cString: raw)
                if let phones = phoneCount[phrase] {
                    var acoustic: Int32 = 0, language: Int32 = 0, backoff: Int32 = 0
                    let score = PhraseSpotter.perPhone(ps_seg_prob(current, &acoustic, &language, &backoff), phones: phones)
                    best[phrase] = max(best[phrase] ?? -.infinity, score)
                }
            }
            segment = ps_seg_next(current)
        }
        if let segment { ps_seg_free(segment) }
        return best
    }

    private func hear(_ samples: [Int16]) throws(RecognitionError) {
        guard ps_start_utt(decoder) == 0 else { throw .decoder("cannot start an utterance") }
        let processed = stream(samples)
        guard ps_end_utt(decoder) == 0, processed >= 0 else { throw .decoder("cannot decode the audio") }
    }

    /// Audio handed to the streaming (not whole-utterance) search at once: 128 ms, 12.8 frames
    /// of 10 ms, far under the 256 frames sphinxbase's live feature ring holds (LIVEBUFBLOCKSIZE
    /// in sphinxbase/feat.h).
    static let streamBlock = 2048

    /// Feeds `samples` to the utterance under way in blocks of `streamBlock`: frames searched,
    /// or a negative pocketsphinx error. One call with the whole buffer is not safe once
    /// `decode` has run on this decoder: a whole-utterance decode leaves the acoustic model's
    /// cepstrum buffer as long as that utterance, and the streaming path then hands sphinxbase's
    /// live feature code (cmn_live, feat_s2mfc2feat_live) more frames than its ring holds in one
    /// go: it reads past the ring (SIGSEGV in libsphinxbase) or silently stops early (of a 33 s
    /// stretch, 7.5 s searched). In blocks, no call converts more than a block's frames, whatever
    /// the buffer's size (PhraseSpotterTests, "a transcript then spotting on one decoder").
    private func stream(_ samples: [Int16]) -> Int32 {
        samples.withUnsafeBufferPointer { buffer in
            var searched: Int32 = 0
            // Bounded by the buffer: each pass consumes one block.
            for start in stride(from: 0, to: buffer.count, by: Self.streamBlock) {
                let count = min(Self.streamBlock, buffer.count - start)
                let frames = ps_process_raw(decoder, buffer.baseAddress! + start, count, 0, 0)
                guard frames >= 0 else { return frames }
                searched += frames
            }
            return searched
        }
    }

    /// The phones of `phrase` by the dictionary's first pronunciation; a word the dictionary
    /// lacks is added as espeak-ng spells it (`learn`); nil when one can be neither.
    private func phones(in phrase: String) -> Int? {
        var total = 0
        for word in phrase.split(separator: " ").map(String.init) {
            if phoneCounts[word] == nil {
                let pronunciation = ps_lookup_word(decoder, word)
                phoneCounts[word] = pronunciation.map { String(cString: $0).split(separator: " ").count } ?? learn(word)
                free(pronunciation)
            }
            guard let count = phoneCounts[word] ?? nil else { return nil }
            total += count
        }
        return total > 0 ? total : nil
    }

    /// Adds `word` to this decoder's dictionary (and its language model) as espeak-ng
    /// pronounces it, mapped onto the model's phones (Pronunciation): its phone count, or nil
    /// when espeak-ng cannot spell it in phones the model has.
    private func learn(_ word: String) -> Int? {
        guard word.allSatisfy({ $0.isLetter || $0 == "'" }),
              let spelled = SpeechSynthesizer.shared.phonemes(of: word),
              let phones = Pronunciation.modelPhones(espeak: spelled),
              ps_add_word(decoder, word, phones.joined(separator: " "), 1) >= 0 else { return nil }
        return phones.count
    }

    /// A dictionary entry as a word: nil for silences and fillers (`<sil>`, `[NOISE]`), and
    /// without the pronunciation variant (`for(2)`).
    static func spoken(_ entry: String) -> String? {
        guard let first = entry.first, first != "<", first != "[", first != "+" else { return nil }
        return entry.firstIndex(of: "(").map { String(entry[..<$0]) } ?? entry
    }
}
