/// The run's own verdict as one more JUnit test case (`parley load --junit`): the thresholds,
/// `--max-failures` and saturation judge the run as a whole, and a CI's test report must be red
/// when the job is, not green beside it because every call passed.
struct RunVerdictCase {
    /// The test case's name.
    static let name = "run: thresholds and saturation"

    /// Why the run failed, one reason a line; empty when it passed.
    let problems: [String]
    /// The summary's last line: PASSED or FAILED with each threshold and its figure.
    let verdictLine: String
    /// The run's wall time, from the first dial to the last call's end.
    let seconds: Double

    var passed: Bool { problems.isEmpty }
}

extension RunVerdictCase {
    init(_ summary: LoadSummary) {
        self.init(problems: summary.problems, verdictLine: summary.verdictLine, seconds: summary.seconds)
    }
}
