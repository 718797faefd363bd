@testable import CLI
import Testing

/// `--duration -5` reaches the option's own range check instead of "Missing value" (issue 30, item 4).
@Suite struct NegativeNumberArgumentsTests {
    @Test func aNegativeNumberAfterALongOptionIsJoinedToIt() {
        #expect(NegativeNumberArguments.joined(["call", "bob", "--duration", "-5"]) == ["call", "bob", "--duration=-5"])
        #expect(NegativeNumberArguments.joined(["--rate", "-0.5", "--hold", "-.5", "--x", "-1e3"]) == ["--rate=-0.5", "--hold=-.5", "--x=-1e3"])
    }

    @Test func everythingElseIsLeftAsItIs() {
        let untouched = [["--json", "-v"], ["--duration=-5"], ["-5"], ["--play", "-"], ["--", "--duration", "-5"], ["--dtmf", "-5x"]]
        for arguments in untouched { #expect(NegativeNumberArguments.joined(arguments) == arguments) }
    }
}
