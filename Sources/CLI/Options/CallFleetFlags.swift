import ArgumentParser

/// What `parley answer` and `parley load` do on each of their many calls: the same flags, the
/// same checks.
struct CallFleetFlags: ParsableArguments {
    @Option(help: "A bot script (YAML or JSON, docs/bots.md) to run on every call once it is active.")
    var bot: String?

    @Option(help: "Record each call to a WAV file in DIR (answer: DIR/<call id>.wav, load: DIR/load-<n>.wav); bot recordings go there too.")
    var recordDir: String?

    @Option(help: "Digits to send on each call once it is active (0-9 * # A-D).")
    var dtmf: String?

    @Option(help: "Seconds between --json clock events: calls up, media clock lateness, RSS, CPU time (0: none).")
    var clockInterval: Duration = .zero

    func validate() throws {
        guard clockInterval == .zero || (.milliseconds(100) ... .seconds(3600)).contains(clockInterval) else { throw ValidationError("--clock-interval must be 0 or 0.1-3600 seconds") }
        try MediaFlags.checkDTMF(dtmf)
        try RecordDirectory.validate(recordDir)
    }
}
