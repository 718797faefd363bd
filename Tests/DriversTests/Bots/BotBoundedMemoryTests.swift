@testable import Drivers
@testable import Parley
import Testing

/// A call's bot keeps a bounded record of what happened, however long the call lasts: a prompt
/// looped for hours visits a step a second, and a far end may press keys the whole time.
@Suite struct BotBoundedMemoryTests {
    @Test func theTrailKeepsTheFirstAndLastStepsAndCountsTheRest() {
        var trail = BotStepTrail()
        for number in 0..<1000 { trail.append("s\(number)") }
        let half = BotStepTrail.kept / 2
        #expect(trail.visited == 1000)
        #expect(trail.names.count == BotStepTrail.kept)
        #expect(trail.omitted == 1000 - BotStepTrail.kept)
        #expect(Array(trail.names.prefix(half)) == (0..<half).map { "s\($0)" })
        #expect(Array(trail.names.suffix(half)) == (1000 - half..<1000).map { "s\($0)" })
    }

    @Test func aShortTrailIsKeptWhole() {
        var trail = BotStepTrail()
        for name in ["welcome", "menu", "menu", "bye"] { trail.append(name) }
        #expect(trail.names == ["welcome", "menu", "menu", "bye"])
        #expect(trail.omitted == 0)
    }

    @Test func theOutcomeNamesWhereStepsWereLeftOut() {
        let outcome = BotOutcome(steps: ["a", "b", "y", "z"], stepsVisited: 10, digits: [], recordings: [], ending: .callerHungUp)
        #expect(outcome.stepsOmitted == 6)
        #expect(outcome.stepsText(separator: " > ") == "a > b > … 6 more … > y > z")
    }

    @Test func digitsNobodyReadsAreCountedButNotAllKept() async {
        let inbox = DigitInbox()
        let pressed = DigitInbox.keptDigits * 5
        for _ in 0..<pressed { await inbox.push("5") }
        #expect(await inbox.receivedCount == pressed)
        #expect(await inbox.received.count == DigitInbox.keptDigits)
        var waiting = 0
        while case .digit = await inbox.next(before: .now), waiting <= pressed { waiting += 1 }
        #expect(waiting == DigitInbox.keptDigits)
    }
}
