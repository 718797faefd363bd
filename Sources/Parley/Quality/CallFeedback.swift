import Foundation

/// A person's rating of a finished call, as Exotel's SDK asks for one: 1 (bad) to 5 (excellent)
/// and what was wrong, from its fixed list (docs/calls.md, "Feedback").
public struct CallFeedback: Sendable, Equatable, Codable {
    public enum Issue: String, Sendable, CaseIterable, Codable {
        case noIssue = "no-issue"
        case backgroundNoise = "background-noise"
        case choppyAudio = "choppy-audio"
        case highLatency = "high-latency"
        case noAudio = "no-audio"
        case echo

        /// The issue in words, for a prompt: "background noise".
        public var words: String { rawValue.replacingOccurrences(of: "-", with: " ") }

        /// "no-issue, background-noise, … or echo", for the error that answers an unknown issue.
        public static var choices: String {
            allCases.dropLast().map(\.rawValue).joined(separator: ", ") + " or " + (allCases.last?.rawValue ?? "")
        }

        /// An issue by its name ("choppy-audio"), its words ("choppy audio") or its place in
        /// `allCases` from 1 (as a prompt numbers them), in any case.
        public init(parsing text: String) throws(ParleyError) {
            let name = text.trimmingCharacters(in: .whitespaces).lowercased().replacingOccurrences(of: " ", with: "-").replacingOccurrences(of: "_", with: "-")
            if let issue = Self(rawValue: name) {
                self = issue
            } else if let number = Int(name), Self.allCases.indices.contains(number - 1) {
                self = Self.allCases[number - 1]
            } else {
                throw ParleyError(kind: .configuration, message: "unknown call issue \"\(text.prefix(40))\"; use \(Self.choices)")
            }
        }
    }

    public static let ratings = 1...5

    public let rating: Int
    public let issue: Issue

    public init(rating: Int, issue: Issue = .noIssue) throws(ParleyError) {
        guard Self.ratings.contains(rating) else {
            throw ParleyError(kind: .configuration, message: "a call's rating is a whole number from 1 to 5, not \(rating)")
        }
        self.rating = rating
        self.issue = issue
    }

    /// A rating ("4") and an optional issue, as typed on a command line or at a prompt.
    public init(rating text: String, issue: String?) throws(ParleyError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let rating = Int(trimmed) else {
            throw ParleyError(kind: .configuration, message: "a call's rating is a whole number from 1 to 5, not \"\(text.prefix(40))\"")
        }
        try self.init(rating: rating, issue: try issue.map { text throws(ParleyError) in try Issue(parsing: text) } ?? .noIssue)
    }

    /// `RATING` or `RATING:ISSUE` (`4:echo`), the form a script gives `parley call --rate`.
    public init(parsing text: String) throws(ParleyError) {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        try self.init(rating: parts[0], issue: parts.count == 2 ? parts[1] : nil)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(rating: try container.decode(Int.self, forKey: .rating), issue: try container.decodeIfPresent(Issue.self, forKey: .issue) ?? .noIssue)
    }

    private enum CodingKeys: String, CodingKey { case rating, issue }
}
