import Media
import Parley

/// The stretches of speech one listening step (or one recording) heard, a short quiet between
/// each, kept so that expected words are spotted in all of them together: a sentence may come
/// in several stretches.
public struct HeardSpeech: Sendable {
    /// Seconds kept: longer than any prompt a step expects; older speech is dropped first.
    static let longest = 30

    public private(set) var samples: [Int16] = []
    public private(set) var sampleRate = 0

    public init() {}

    public var isEmpty: Bool { samples.isEmpty }

    package mutating func append(_ stretch: SpeechSegmenter.Segment) {
        if sampleRate != stretch.sampleRate {
            samples = []
            sampleRate = stretch.sampleRate
        }
        if !samples.isEmpty { samples += [Int16](repeating: 0, count: sampleRate * 3 / 10) }
        samples += stretch.samples
        let kept = sampleRate * Self.longest
        if samples.count > kept { samples.removeFirst(samples.count - kept) }
    }

    /// The best word accuracy of `alternatives` (texts) in what was heard, by spotting
    /// (PhraseSpotter): 0 to 1.
    public func accuracy(of alternatives: [String], recognizer: SpeechRecognizer = .shared) async throws(RecognitionError) -> Double {
        guard !isEmpty else { return 0 }
        let expected = alternatives.map(WordMatch.words)
        let scores = try await recognizer.spot(PhraseSpotter.phrases(for: expected.flatMap(PhraseSpotter.runs)), in: samples, sampleRate: sampleRate)
        return expected.map { PhraseSpotter.accuracy(of: $0, scores: scores) }.max() ?? 0
    }

    /// The keyword of `keywords` (each one or more words) heard best, if any was: a keyword
    /// matches its plural and singular alike ("sale" heard for "sales").
    public func keyword(among keywords: [String], recognizer: SpeechRecognizer = .shared) async throws(RecognitionError) -> Int? {
        guard !isEmpty else { return nil }
        let forms = keywords.map { Self.forms(of: WordMatch.words($0)) }
        let scores = try await recognizer.spot(PhraseSpotter.phrases(for: forms.flatMap { $0.flatMap(PhraseSpotter.runs) }), in: samples, sampleRate: sampleRate)
        let found = forms.enumerated().compactMap { index, forms -> (Int, Double)? in
            forms.compactMap { PhraseSpotter.keywordScore($0, scores: scores) }.max().map { (index, $0) }
        }
        return found.max { $0.1 < $1.1 }?.0
    }

    /// The free transcript of what was heard: the words the general language model reads in it.
    public func transcript(recognizer: SpeechRecognizer = .shared) async throws(RecognitionError) -> [String] {
        guard !isEmpty else { return [] }
        return try await recognizer.recognise(samples, sampleRate: sampleRate).map(\.word)
    }

    /// Words and their plural or singular.
    static func forms(of words: [String]) -> [[String]] {
        guard let last = words.last else { return [] }
        let stem = WordMatch.stem(last)
        return [words, words.dropLast() + [stem == last ? last + "s" : stem]]
    }
}
