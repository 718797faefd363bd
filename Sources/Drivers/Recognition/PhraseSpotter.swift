import Foundation
import Parley

/// How `heard:` and `keywords:` decide what was said (docs/speech.md, "How words are matched"):
/// not by reading a free transcript, which on synthetic voices the general language model gets
/// mostly wrong, but by decoding the speech against the expected words themselves. Each
/// expected text is cut into overlapping runs of three words; pocketsphinx's keyword spotter
/// scores each run against a loop of any phones over the same audio (a likelihood ratio per
/// phone). How high a right run scores depends on the voice and the line, so a run is heard
/// when it beats, by `margin`, the median score of twelve `decoys` (runs of words no prompt is
/// expected to hold) spotted in the same audio at the same time. The share of expected words
/// inside heard runs is the step's word accuracy.
public enum PhraseSpotter {
    /// Words per run: one word alone is found in too many other words; a whole sentence is lost
    /// to a pause inside it, since the spotter has no silence between the words of a phrase.
    static let runLength = 3
    /// The cohort every run is measured against in the audio it was spotted in.
    static let decoys = [
        "my brother likes", "green apples grow", "under the bridge", "seven blue cars", "lets go fishing",
        "music on radio", "the river flows", "big yellow house", "she writes letters", "cold winter morning",
        "dogs are barking", "open the window",
    ]
    /// How far above the decoys' median score per phone a run must score. Chosen by measurement
    /// (docs/speech.md, "How words are matched"): over ten voices at 16 and 8 kHz, 0.008 accepts
    /// 98 % of right sentences and 1.5 % of other sentences of the same length at accuracy 0.6.
    public static let margin = 0.008
    /// The spotting search's beam and its reporting floor: wide, so that every run's score is
    /// known and the comparison with the decoys alone decides.
    static let beam = 1e-290
    static let searchName = "parley.phrases"

    /// A detection's score (pocketsphinx's log base 1.0001) per phone of its phrase.
    static func perPhone(_ score: Int32, phones: Int) -> Double {
        Double(score) * log(1.0001) / Double(max(1, phones))
    }

    /// The runs of `words` to spot: overlapping runs of `runLength`, or the words themselves
    /// when there are no more.
    public static func runs(_ words: [String]) -> [String] {
        guard words.count > runLength else { return words.isEmpty ? [] : [words.joined(separator: " ")] }
        return (0...(words.count - runLength)).map { words[$0..<($0 + runLength)].joined(separator: " ") }
    }

    /// The score a run needs in the audio `scores` came from: the decoys' median plus `margin`.
    static func needed(_ scores: [String: Double]) -> Double {
        let cohort = decoys.map { scores[$0] ?? -.infinity }.sorted()
        return cohort[cohort.count / 2] + margin
    }

    /// What to spot for `runs`: them and the decoys.
    static func phrases(for runs: [String]) -> [String] {
        Array(Set(runs + decoys))
    }

    /// The share of `words` inside runs whose score reached what is needed: 0 to 1.
    public static func accuracy(of words: [String], scores: [String: Double]) -> Double {
        guard !words.isEmpty else { return 0 }
        let threshold = needed(scores)
        let length = min(runLength, words.count)
        var covered = [Bool](repeating: false, count: words.count)
        for start in 0...(words.count - length) {
            let run = words[start..<(start + length)].joined(separator: " ")
            guard let score = scores[run], score >= threshold else { continue }
            for index in start..<(start + length) { covered[index] = true }
        }
        return Double(covered.filter { $0 }.count) / Double(words.count)
    }

    /// A keyword's score when it beats the decoys' median (single words score lower than runs
    /// of three, so no margin): its weakest run's score, for choosing between keywords.
    static func keywordScore(_ words: [String], scores: [String: Double]) -> Double? {
        let threshold = needed(scores) - margin
        let found = runs(words).map { scores[$0] ?? -.infinity }
        guard !found.isEmpty, found.allSatisfy({ $0 >= threshold }) else { return nil }
        return found.min()
    }
}
