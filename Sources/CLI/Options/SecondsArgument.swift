import ArgumentParser
import Locking
import Signaling

/// Every flag that is a time takes a number of seconds on the command line (`--hold 2.5`) and is
/// a `Duration` from there on. A value that is not a finite number of seconds is refused here,
/// before any flag's own range check.
extension Duration: @retroactive ExpressibleByArgument {
    public init?(argument: String) {
        guard let seconds = Double(argument), seconds.isFinite, abs(seconds) <= Self.largestSeconds else { return nil }
        self = .seconds(seconds)
    }

    /// As `--help` showed these flags' defaults when they were numbers: `30.0`.
    public var defaultValueDescription: String { "\(inSeconds)" }

    /// Far beyond any flag's range (the longest is a day), well inside what a `Duration` holds.
    private static let largestSeconds = 1e12
}
