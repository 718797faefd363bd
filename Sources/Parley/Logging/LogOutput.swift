import Foundation
import Logging
import Locking

/// Where log lines go: human lines to standard error at or above the chosen level, and
/// optionally every line at or above it as NDJSON to a file. Both pass through `SecretRedactor`.
package final class LogOutput: Sendable {
    package let level: Logger.Level
    private let file: Lock<FileHandle?>
    private let humanToStandardError: Bool

    package init(level: Logger.Level, filePath: String? = nil, humanToStandardError: Bool = true) throws {
        self.level = level
        self.humanToStandardError = humanToStandardError
        if let filePath {
            if !FileManager.default.fileExists(atPath: filePath) {
                guard FileManager.default.createFile(atPath: filePath, contents: nil) else {
                    throw ParleyError(kind: .configuration, message: "cannot create the log file \(filePath)")
                }
            }
            guard let handle = FileHandle(forWritingAtPath: filePath) else {
                throw ParleyError(kind: .configuration, message: "cannot open the log file \(filePath) for writing")
            }
            handle.seekToEndOfFile()
            file = Lock(handle)
        } else {
            file = Lock(nil)
        }
    }

    func write(level: Logger.Level, label: String, message: String, metadata: Logger.Metadata, date: Date) {
        let text = SecretRedactor.redact(message)
        let fields = metadata.sorted { $0.key < $1.key }.map { ($0.key, SecretRedactor.redact("\($0.value)")) }
        if humanToStandardError {
            let suffix = fields.isEmpty ? "" : " " + fields.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
            FileHandle.standardError.write(Data("[\(level)] \(label): \(text)\(suffix)\n".utf8))
        }
        writeFile(level: level, label: label, message: text, fields: fields, date: date)
    }

    private func writeFile(level: Logger.Level, label: String, message text: String, fields: [(String, String)], date: Date) {
        file.withLock { handle in
            guard let handle else { return }
            var object: [String: String] = ["level": level.rawValue, "logger": label, "message": text,
                                            "ts": Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)]
            for (key, value) in fields where object[key] == nil { object[key] = value }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            guard let data = try? encoder.encode(object) else { return }
            handle.write(data + Data("\n".utf8))
        }
    }

    /// The output `LoggingSystem` was bootstrapped with, once a command has done so.
    package static let active = Lock<LogOutput?>(nil)

    /// A line for the log file only: what a command already showed a person on standard error
    /// (an error that ends it) still belongs in the file, without a second human line.
    package func recordInFile(level: Logger.Level, label: String, message: String) {
        guard level >= self.level else { return }
        writeFile(level: level, label: label, message: SecretRedactor.redact(message), fields: [], date: Date())
    }

    /// A swift-log handler writing here; use with `LoggingSystem.bootstrap` or `Logger(label:factory:)`.
    package func handler(label: String) -> any LogHandler { ParleyLogHandler(label: label, output: self, logLevel: level) }
}

struct ParleyLogHandler: LogHandler {
    let label: String
    let output: LogOutput
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        output.write(level: event.level, label: label, message: "\(event.message)", metadata: merged, date: Date())
    }
}
