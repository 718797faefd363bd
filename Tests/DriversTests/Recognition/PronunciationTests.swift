@testable import Drivers
@testable import Parley
import TestSupport
import Testing

/// Words outside the recogniser's dictionary get espeak-ng's pronunciation, mapped onto the
/// model's phones (docs/speech.md, "Words outside the dictionary").
@Suite struct PronunciationTests {
    @Test func espeakPhonemesMapOntoTheModelsPhones() throws {
        // "northwind" as espeak-ng's en-us spells it: stress marks dropped, the r-coloured vowel
        // split into the model's vowel and R.
        #expect(Pronunciation.modelPhones(espeak: "n 'O@ T w I n d") == ["N", "AO", "R", "TH", "W", "IH", "N", "D"])
        #expect(Pronunciation.modelPhones(espeak: "'a k m i") == ["AE", "K", "M", "IY"])
        // Affricates, a flap, a glottal stop and a syllabic n.
        #expect(Pronunciation.modelPhones(espeak: "dZ 'V dZ") == ["JH", "AH", "JH"])
        #expect(Pronunciation.modelPhones(espeak: "b 'V t# 3") == ["B", "AH", "T", "ER"])
        #expect(Pronunciation.modelPhones(espeak: "b 'V ? n-") == ["B", "AH", "T", "AH", "N"])
        // Two words' phonemes (two spaces between) and a secondary stress.
        #expect(Pronunciation.modelPhones(espeak: "p r 'E s  w ,V n") == ["P", "R", "EH", "S", "W", "AH", "N"])
    }

    @Test func aPhonemeTheModelLacksLeavesTheWordUnspelt() {
        // A word spelt in part would be spotted as another word.
        #expect(Pronunciation.modelPhones(espeak: "n 'O@ Q d") == nil)
        #expect(Pronunciation.modelPhones(espeak: "") == nil)
        #expect(Pronunciation.modelPhones(espeak: "' ,") == nil)
    }

    @Test func everyPhoneMappedIsOneOfTheModels() {
        let model: Set = ["AA", "AE", "AH", "AO", "AW", "AY", "B", "CH", "D", "DH", "EH", "ER", "EY", "F", "G", "HH", "IH", "IY", "JH",
                          "K", "L", "M", "N", "NG", "OW", "OY", "P", "R", "S", "SH", "T", "TH", "UH", "UW", "V", "W", "Y", "Z", "ZH"]
        #expect(Set(Pronunciation.phones.values.flatMap { $0 }).subtracting(model).isEmpty)
    }

    /// espeak-ng itself spells brand names the CMU dictionary lacks, in phonemes the map knows.
    @Test func espeakSpellsBrandNamesInPhonesTheModelHas() throws {
        for word in ["northwind", "acme", "contoso", "zendesk", "telnyx"] {
            let spelled = try #require(SpeechSynthesizer.shared.phonemes(of: word), "\(word)")
            #expect(Pronunciation.modelPhones(espeak: spelled) != nil, "\(word): \(spelled)")
        }
    }

    /// A sentence with a brand name passes a strict check (accuracy 1): before its words could
    /// be spelt, every run holding "northwind" was never heard.
    @Test(.notInQuickCheck) func aSentenceWithABrandNamePassesAStrictCheck() async throws {
        let sentence = "thank you for calling northwind bank"
        let heard = try await PhraseSpotterTests.spoken("Thank you for calling Northwind Bank.", voice: "en-us", narrowband: false)
        let accuracy = try await heard.accuracy(of: [sentence])
        #expect(accuracy == 1, "word accuracy \(accuracy)")
    }
}
