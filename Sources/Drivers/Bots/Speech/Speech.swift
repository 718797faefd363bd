import Foundation
import Parley

/// Text a bot speaks with espeak-ng, and the voice it speaks in (docs/bots.md, "Speaking").
public struct Speech: Sendable, Hashable {
    public static let defaultVoice = "en-us"
    /// Words per minute; espeak-ng's own range and default.
    public static let rates = 80...450
    public static let defaultRate = 175
    /// 0-99, 50 is the voice's own.
    public static let pitches = 0...99
    public static let defaultPitch = 50
    public static let maximumLength = 2000
    /// What `{name}` in the text may name; each is filled in per call.
    public static let variables = ["caller", "digits"]
    /// The most characters of a variable's value that are spoken: the caller id comes from the
    /// far end, and the text is synthesised on the one queue every call shares.
    public static let maximumVariableLength = 64

    public var text: String
    public var voice: String
    public var rate: Int
    public var pitch: Int

    public init(_ text: String, voice: String = Self.defaultVoice, rate: Int = Self.defaultRate, pitch: Int = Self.defaultPitch) {
        self.text = text
        self.voice = voice
        self.rate = rate
        self.pitch = pitch
    }

    /// Whether the text names call variables, so it is spoken anew for every call instead of
    /// once per process.
    public var isPerCall: Bool { Self.variables.contains { text.contains("{\($0)}") } }

    /// The `{name}` placeholders in `text` that are not call variables, or unbalanced braces.
    static func problems(in text: String) -> String? {
        var rest = Substring(text)
        while let open = rest.firstIndex(where: { $0 == "{" || $0 == "}" }) {
            guard rest[open] == "{", let close = rest[open...].firstIndex(of: "}") else { return "unbalanced braces" }
            let name = String(rest[rest.index(after: open)..<close])
            guard variables.contains(name) else {
                return "unknown variable {\(name)}; use " + variables.map { "{\($0)}" }.joined(separator: " or ")
            }
            rest = rest[rest.index(after: close)...]
        }
        return nil
    }

    /// The text with each variable replaced by its value, spelt key by key so a number is read
    /// as digits ("1 2 3", not "one hundred and twenty-three").
    /// Each value is cut to `maximumVariableLength` characters and the filled text to
    /// `maximumLength`, whatever the far end sent.
    func filled(_ values: [String: String]) -> Speech {
        var copy = self
        for name in Self.variables {
            let value = String((values[name] ?? "").prefix(Self.maximumVariableLength))
            copy.text = copy.text.replacingOccurrences(of: "{\(name)}", with: Self.spelt(value))
        }
        copy.text = String(copy.text.prefix(Self.maximumLength))
        return copy
    }

    static func spelt(_ value: String) -> String {
        guard !value.isEmpty, value.allSatisfy({ $0.isNumber || "+*#ABCD".contains($0) }) else { return value }
        return value.map { key in
            switch key {
            case "*": "star"
            case "#": "hash"
            case "+": "plus"
            default: String(key)
            }
        }.joined(separator: " ")
    }
}

/// Speech rendered for one call (its text named call variables). Compared by identity: two
/// renderings are two prompts, and neither is kept by the prompt cache.
public final class SpokenAudio: Sendable, Hashable {
    let samples: [Int16]
    let sampleRate: Int

    init(samples: [Int16], sampleRate: Int) {
        self.samples = samples
        self.sampleRate = sampleRate
    }

    public static func == (lhs: SpokenAudio, rhs: SpokenAudio) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
