import Foundation
import Drivers
import Parley
import Testing

/// `heard:`, `accuracy:`, `prompt:` and `keywords:` on wait and expect steps (docs/speech.md).
@Suite struct BotHearingScriptTests {
    private func parse(_ text: String) throws -> BotScript {
        try BotScript.parse(text: text, format: .yaml, baseDirectory: "/tmp", fileName: "bot.yaml")
    }

    private func error(_ text: String) -> BotScriptError? {
        do {
            _ = try parse(text)
            return nil
        } catch let error as BotScriptError {
            return error
        } catch {
            return nil
        }
    }

    @Test func heardTakesOneTextOrAListAndAnAccuracy() throws {
        let script = try parse("""
            start: a
            steps:
              a: {type: expect, heard: Press one for sales, within: 5, next: b}
              b:
                type: expect
                heard: [you reached sales, this is sales]
                accuracy: 80%
            """)
        #expect(script.steps["a"] == .expect(BotExpectation(event: .heard(.words(alternatives: ["Press one for sales"], accuracy: BotHearing.defaultAccuracy)),
                                                            within: .seconds(5), next: .step("b"))))
        #expect(script.steps["b"] == .expect(BotExpectation(event: .heard(.words(alternatives: ["you reached sales", "this is sales"], accuracy: 0.8)),
                                                            next: .hangup)))
    }

    @Test func aWaitBranchesOnKeywords() throws {
        let script = try parse("""
            start: a
            steps:
              a:
                type: wait
                keywords: {sales: s, customer support: t}
                timeout: 8
                on_timeout: hangup
              s: {type: hangup}
              t: {type: hangup}
            """)
        guard case .wait(let wait) = try #require(script.steps["a"]) else { Issue.record("not a wait"); return }
        #expect(wait.hearing == .keywords([BotKeyword(phrase: "sales", target: .step("s")), BotKeyword(phrase: "customer support", target: .step("t"))]))
        #expect(wait.timeout == .seconds(8))
    }

    @Test func badHearingIsRefusedWithTheLine() {
        let cases: [(String, String)] = [
            ("  a: {type: expect, heard: sales, for: speech}", "for does not go with heard"),
            ("  a: {type: expect, heard: sales, accuracy: 1.5}", "accuracy of step \"a\" must be more than 0 and at most 1"),
            ("  a: {type: expect, heard: \"...\"}", "at least one word"),
            ("  a: {type: expect, keywords: {sales: hangup}}", "unknown key \"keywords\""),
            ("  a: {type: expect, for: speech, accuracy: 0.5}", "accuracy goes with heard or prompt"),
            ("  a: {type: wait, keywords: {sales: nowhere}}", "goes to \"nowhere\""),
            ("  a: {type: wait, keywords: {sales: hangup}, next: hangup}", "not to next"),
            ("  a: {type: expect, prompt: gone.wav}", "does not exist"),
            ("  a: {type: expect, heard: sales, prompt: gone.wav}", "one of heard, prompt or keywords"),
        ]
        for (step, fragment) in cases {
            let found = error("start: a\nsteps:\n\(step)\n")
            #expect(found?.message.contains(fragment) == true, "\(step): \(found?.description ?? "no error")")
            #expect(found?.line == 3, "\(step): \(found?.description ?? "no error")")
        }
    }
}
