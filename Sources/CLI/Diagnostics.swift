import Foundation

/// Human output goes to standard error; standard output is kept for `--json` lines.
enum Diagnostics {
    static func say(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    /// Reports a failure as a line (and a JSON error event with `--json`) and exits.
    static func fail(_ message: String, json: Bool, code: String, status: Int32 = 1) -> Never {
        if json { JSONEvents.emit("error", ErrorPayload(code: code, message: message, line: nil)) }
        say(message)
        Foundation.exit(status)
    }
}
