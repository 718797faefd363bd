import Parley

/// Pronunciations for words the recogniser's dictionary lacks (brand names: "Northwind",
/// "Acme"; docs/speech.md, "Words outside the dictionary"): espeak-ng spells any word in its own
/// phoneme names, and this maps them onto the phone set of the pocketsphinx en-us model (the CMU
/// dictionary's 39 phones), so the word can be added to a decoder's dictionary and spotted.
public enum Pronunciation {
    /// espeak-ng's English phoneme names (its ASCII names, `espeak_TextToPhonemes` mode 0) and
    /// the model's phones for each. Stress and length marks are dropped before the lookup.
    /// Names from espeak-ng-data's English phoneme table (phsource/ph_english): vowels with
    /// their r-coloured and reduced variants, flaps, the glottal stop and syllabic consonants.
    static let phones: [String: [String]] = [
        // Vowels.
        "a": ["AE"], "aa": ["AA"], "a#": ["AH"], "a2": ["AH"], "A": ["AA"], "A:": ["AA"], "A@": ["AA", "R"],
        "0": ["AA"], "0@": ["AO", "R"], "O": ["AO"], "O:": ["AO"], "O@": ["AO", "R"], "o@": ["AO", "R"], "o": ["OW"],
        "V": ["AH"], "@": ["AH"], "@2": ["AH"], "@5": ["AH"], "@-": ["AH"], "@L": ["AH", "L"],
        "3": ["ER"], "3:": ["ER"], "3r": ["ER"], "@r": ["ER"],
        "I": ["IH"], "I2": ["IH"], "I#": ["IH"], "I2#": ["IH"], "i": ["IY"], "i:": ["IY"], "i@": ["IH", "R"], "i@3": ["IH", "R"],
        "e": ["EH"], "E": ["EH"], "E2": ["EH"], "e@": ["EH", "R"], "eI": ["EY"], "aI": ["AY"], "aI@": ["AY", "ER"], "aI3": ["AY", "ER"],
        "aU": ["AW"], "aU@": ["AW", "ER"], "oU": ["OW"], "oU#": ["OW"], "OI": ["OY"],
        "U": ["UH"], "U@": ["UH", "R"], "u": ["UW"], "u:": ["UW"], "u@": ["UH", "R"],
        // Consonants.
        "p": ["P"], "b": ["B"], "t": ["T"], "d": ["D"], "k": ["K"], "g": ["G"], "x": ["K"],
        "t#": ["T"], "d#": ["D"], "t2": ["T"], "d2": ["D"], "?": ["T"],
        "f": ["F"], "v": ["V"], "T": ["TH"], "D": ["DH"], "s": ["S"], "z": ["Z"], "S": ["SH"], "Z": ["ZH"], "h": ["HH"],
        "tS": ["CH"], "dZ": ["JH"],
        "m": ["M"], "n": ["N"], "N": ["NG"], "m-": ["AH", "M"], "n-": ["AH", "N"], "l-": ["AH", "L"], "r-": ["ER"],
        "l": ["L"], "r": ["R"], "w": ["W"], "W": ["W"], "j": ["Y"],
    ]

    /// Marks espeak-ng puts on a phoneme's name (stress, secondary stress, unstressed, length,
    /// syllable break) that the model's phones do not carry.
    private static let marks: Set<Character> = ["'", ",", "%", "=", "_", ";", "|"]

    /// The model's phones for espeak-ng's phonemes `spelling` (names one space apart, as
    /// `espeak_TextToPhonemes` gives them with a space as the separator), or nil when a
    /// phoneme has no counterpart: a word spelt in part would be spotted as another word.
    public static func modelPhones(espeak spelling: String) -> [String]? {
        var result: [String] = []
        for token in spelling.split(whereSeparator: \.isWhitespace) {
            let name = String(token.filter { !marks.contains($0) })
            guard !name.isEmpty else { continue }
            guard let mapped = phones[name] else { return nil }
            result += mapped
        }
        return result.isEmpty ? nil : result
    }
}
