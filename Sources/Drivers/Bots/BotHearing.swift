import Foundation
import Parley

/// What a listening step hears in the far end's speech rather than in its sound level
/// (docs/speech.md): words, a recorded prompt, or one of several keywords.
public enum BotHearing: Sendable, Equatable, CustomStringConvertible {
    /// `heard:`: any of `alternatives`, each matched with at least `accuracy` word accuracy.
    case words(alternatives: [String], accuracy: Double)
    /// `prompt:`: speech that sounds like the recording at `path`, by `similarity` at least.
    case prompt(path: String, similarity: Double)
    /// `keywords:` (a `wait` only): the first keyword heard chooses where to go.
    case keywords([BotKeyword])

    /// The word accuracy a `heard:` needs unless its step says otherwise (docs/speech.md).
    public static let defaultAccuracy = 0.6
    /// The similarity a `prompt:` needs unless its step says otherwise (docs/speech.md).
    public static let defaultSimilarity = 0.4

    public var description: String {
        switch self {
        case .words(let alternatives, _): alternatives.map { "\"\($0)\"" }.joined(separator: " or ")
        case .prompt(let path, _): "speech like \((path as NSString).lastPathComponent)"
        case .keywords(let keywords): keywords.map { "\"\($0.phrase)\"" }.joined(separator: " or ")
        }
    }
}

/// A keyword (one or more words) and the step it leads to.
public struct BotKeyword: Sendable, Equatable {
    public var phrase: String
    public var target: BotTarget

    public init(phrase: String, target: BotTarget) {
        self.phrase = phrase
        self.target = target
    }
}
