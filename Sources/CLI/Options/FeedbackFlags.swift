import ArgumentParser
import Parley

/// `parley call`'s feedback flags (docs/cli.md, "Feedback"): ask the person to rate the call
/// once it ended, or take the rating from the command line, and where the call record file is.
struct FeedbackFlags: ParsableArguments {
    @Flag(help: "After the call, on a terminal, ask for a rating 1-5 and what was wrong (Enter skips).")
    var feedback = false

    @Option(help: ArgumentHelp("Rate the call without asking: 1-5, and optionally what was wrong (\(CallFeedback.Issue.choices)), e.g. 4:echo.",
                               valueName: "RATING[:ISSUE]"))
    var rate: String?

    @Option(help: ArgumentHelp("The call record file each call is added to, for `parley feedback` (default $XDG_STATE_HOME/parley/calls.jsonl).",
                               valueName: "FILE"))
    var callLog: String?

    /// The rating given with `--rate`, checked before anything connects.
    func given() throws(ParleyError) -> CallFeedback? {
        if feedback, rate != nil { throw ParleyError(kind: .configuration, message: "--feedback asks for a rating and --rate gives one: use one of them") }
        return try rate.map { text throws(ParleyError) in try CallFeedback(parsing: text) }
    }

    var log: CallLog { CallLog(path: callLog ?? CallLog.defaultPath()) }
}
