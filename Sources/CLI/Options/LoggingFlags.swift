import ArgumentParser
import Locking
import Logging
import Parley

/// `--log-level`, `--log-file` and `--json`, shared by every long-running command.
struct LoggingFlags: ParsableArguments {
    @Option(help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .warning

    @Option(help: "Also write every log line at or above the level as NDJSON to this file.")
    var logFile: String?

    @Flag(help: "Print one JSON object per line on standard output.")
    var json = false

    /// Debug and trace show what is otherwise hidden as a PIN could be (received digits).
    var revealsSecrets: Bool { logLevel <= .debug }

    /// Routes swift-log through Parley's redacting output. Call once, first thing in `run`.
    func bootstrap() throws(ParleyError) -> Logger {
        let output: LogOutput
        do {
            output = try LogOutput(level: logLevel, filePath: logFile)
        } catch let error as ParleyError {
            throw error
        } catch {
            throw ParleyError(kind: .configuration, message: "\(error)")
        }
        LoggingSystem.bootstrap { label in output.handler(label: label) }
        LogOutput.active.withLock { $0 = output }
        var logger = Logger(label: "parley")
        logger.logLevel = logLevel
        return logger
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
