import Parley

/// How well words heard match words expected (docs/speech.md, "Word accuracy").
public enum WordMatch {
    static let digitNames = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]

    /// `text` as the recogniser spells words: lower case, punctuation dropped, each digit a word.
    public static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        func flush() {
            if !current.isEmpty { words.append(current) }
            current = ""
        }
        for character in text.lowercased() {
            if let digit = character.wholeNumberValue, character.isASCII {
                flush()
                words.append(digitNames[digit])
            } else if character.isLetter || character == "'" {
                current.append(character)
            } else {
                flush()
            }
        }
        flush()
        return words
    }

    /// The share of `expected` that `heard` holds in order: 1 − (substitutions + deletions +
    /// insertions) / `expected.count`, over the stretch of `heard` that matches best, so words
    /// heard before or after the expected ones do not count against it. 0 to 1.
    public static func accuracy(expected: [String], heard: [String]) -> Double {
        guard !expected.isEmpty else { return 1 }
        // Edit distance with a free start and end in `heard` (one row per expected word).
        var previous = [Int](repeating: 0, count: heard.count + 1)
        for (row, word) in expected.enumerated() {
            var current = [Int](repeating: row + 1, count: heard.count + 1)
            for column in 1...max(1, heard.count) where column <= heard.count {
                let substitution = previous[column - 1] + (heard[column - 1] == word ? 0 : 1)
                current[column] = min(substitution, previous[column] + 1, current[column - 1] + 1)
            }
            previous = current
        }
        let edits = previous.min() ?? expected.count
        return max(0, 1 - Double(edits) / Double(expected.count))
    }

    /// Whether `keyword` (one or more words) is among `heard`, in order and side by side.
    public static func contains(_ heard: [String], keyword: [String]) -> Bool {
        guard !keyword.isEmpty, heard.count >= keyword.count else { return false }
        return (0...(heard.count - keyword.count)).contains { Array(heard[$0..<($0 + keyword.count)]) == keyword }
    }
}

extension WordMatch {
    /// A keyword matches its plural and singular alike ("sale" heard for "sales").
    static func stem(_ word: String) -> String {
        word.count > 3 && word.hasSuffix("s") && !word.hasSuffix("ss") ? String(word.dropLast()) : word
    }
}
