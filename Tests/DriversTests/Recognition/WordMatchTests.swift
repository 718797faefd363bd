import Drivers
import Parley
import Testing

@Suite struct WordMatchTests {
    @Test func wordsAreLowerCaseWithoutPunctuationAndDigitsSpelt() {
        #expect(WordMatch.words("Press 1, for Sales!") == ["press", "one", "for", "sales"])
        #expect(WordMatch.words("  ") == [])
    }

    @Test func accuracyCountsSubstitutionsDeletionsAndInsertions() {
        let expected = WordMatch.words("press one for sales")
        #expect(WordMatch.accuracy(expected: expected, heard: expected) == 1)
        #expect(WordMatch.accuracy(expected: expected, heard: ["press", "one", "for", "sale"]) == 0.75)
        #expect(WordMatch.accuracy(expected: expected, heard: ["press", "for", "sales"]) == 0.75)
        #expect(WordMatch.accuracy(expected: expected, heard: ["press", "two", "for", "support"]) == 0.5)
        #expect(WordMatch.accuracy(expected: expected, heard: []) == 0)
    }

    @Test func wordsHeardBeforeOrAfterTheExpectedOnesDoNotCount() {
        let heard = WordMatch.words("welcome to acme press one for sales or two for support")
        #expect(WordMatch.accuracy(expected: WordMatch.words("press one for sales"), heard: heard) == 1)
    }

    @Test func keywordsAreFoundSideBySide() {
        #expect(WordMatch.contains(["i", "want", "sales", "please"], keyword: ["sales"]))
        #expect(WordMatch.contains(["the", "sales", "team"], keyword: ["sales", "team"]))
        #expect(!WordMatch.contains(["sales", "the", "team"], keyword: ["sales", "team"]))
    }
}
