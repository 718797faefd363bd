import Foundation
import Media
import Parley

/// Judges the stretches of speech one listening step hears, in order, against what the step
/// listens for: words (spotted, PhraseSpotter), keywords, or a recorded prompt (by sound
/// similarity). The free transcript is made only for a verdict that failed.
struct HearingJudge: Sendable {
    /// What the step heard, for its verdict.
    struct Summary: Sendable, CustomStringConvertible {
        var words: [String]
        var stretches: Int
        /// The best word accuracy or similarity reached, when there is one.
        var score: Double?
        var measure: String

        var description: String {
            guard stretches > 0 else { return "heard no speech" }
            let figure = score.map { " (\(measure) \(String(format: "%.2f", $0)))" } ?? ""
            if measure == "similarity" { return "heard \(stretches) stretch\(stretches == 1 ? "" : "es") of speech unlike it\(figure)" }
            return words.isEmpty ? "heard speech but no words\(figure)" : "heard \"\(words.joined(separator: " "))\"\(figure)"
        }
    }

    let hearing: BotHearing
    private let reference: SoundPrint?
    private var words: [String] = []
    private var recent: [Int16] = []
    private var heard = HeardSpeech()
    private var stretches = 0
    private var best: Double?

    init(_ hearing: BotHearing) throws {
        self.hearing = hearing
        if case .prompt(let path, _) = hearing {
            reference = try SoundPrint(recording: path)
        } else {
            reference = nil
        }
    }

    var summary: Summary {
        let measure = switch hearing {
        case .words: "word accuracy"
        case .prompt: "similarity"
        case .keywords: "keywords"
        }
        return Summary(words: words, stretches: stretches, score: best, measure: measure)
    }

    /// Judges one more stretch: nil while what the step listens for has not come; then where to
    /// go (nil inside: the step's `next`).
    mutating func judge(_ stretch: SpeechSegmenter.Segment) async throws -> BotTarget?? {
        stretches += 1
        switch hearing {
        case .words(let alternatives, let accuracy):
            heard.append(stretch)
            let score = try await heard.accuracy(of: alternatives)
            best = max(best ?? 0, score)
            return score >= accuracy ? .some(nil) : nil
        case .keywords(let keywords):
            heard.append(stretch)
            return try await heard.keyword(among: keywords.map(\.phrase)).map { .some(keywords[$0].target) }
        case .prompt(_, let similarity):
            guard let reference else { return nil }
            recent += try AudioResampler.resample(stretch.samples, from: stretch.sampleRate, to: SoundPrint.sampleRate)
            // Compare the latest speech, as long as the recording's and a half: a prompt may
            // come in several stretches, after other speech.
            let kept = reference.sampleCount * 3 / 2
            if recent.count > kept { recent.removeFirst(recent.count - kept) }
            let score = reference.similarity(to: SoundPrint(samples: recent))
            best = max(best ?? 0, score)
            return score >= similarity ? .some(nil) : nil
        }
    }

    /// Whether the free transcript (after `transcribe`) reaches a `heard:` step's accuracy by
    /// word error rate (WordMatch).
    var transcriptMatches: Bool {
        guard case .words(let alternatives, let accuracy) = hearing, !words.isEmpty else { return false }
        return alternatives.contains { WordMatch.accuracy(expected: WordMatch.words($0), heard: words) >= accuracy }
    }

    /// Makes the free transcript of what a `heard:` step heard, for its verdict: the words the
    /// general language model reads in it (docs/speech.md). An error leaves it empty.
    mutating func transcribe() async {
        guard case .words = hearing else { return }
        words = (try? await heard.transcript()) ?? []
    }
}
