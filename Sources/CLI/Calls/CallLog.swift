import Foundation
import Parley

/// The call record file: one line per call `parley call` placed (its `ended` event's record, the
/// far end, when), so that `parley feedback` can rate a call after the fact (docs/calls.md,
/// "Feedback"). `$XDG_STATE_HOME/parley/calls.jsonl`, `~/.local/state/parley/calls.jsonl`
/// without it, or `--call-log FILE`.
struct CallLog {
    let path: String

    static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let base = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (NSHomeDirectory() + "/.local/state")
        return base + "/parley/calls.jsonl"
    }

    /// One call's line.
    struct Entry: Encodable {
        let call: String
        let remoteParty: String
        let record: CallRecord
    }

    /// Appends the call's line, making the folder when it is missing.
    func append(_ entry: Entry) throws(ParleyError) {
        let line = JSONEvents.line("call", entry, at: entry.record.timeline.ended ?? Date()) + "\n"
        do {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(line.utf8))
        } catch {
            throw ParleyError(kind: .configuration, message: "the call record file \(path): \(error.localizedDescription)")
        }
    }

    /// Sets the feedback of the one call whose id is or begins with `callID` (at least 8
    /// characters, as the terminal shows ids); returns its full id.
    @discardableResult
    func rate(_ callID: String, _ feedback: CallFeedback) throws(LocalInputError) -> String {
        guard callID.count >= 8 else {
            throw LocalInputError(error: ParleyError(kind: .configuration, message: "a call id has at least 8 characters (as `parley call` shows it), not \"\(callID.prefix(40))\""),
                                  status: 64)
        }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw LocalInputError(error: ParleyError(kind: .configuration, message: "no call record file at \(path): no call placed with `parley call` was recorded there"),
                                  status: LocalInputError.unreadableInput)
        }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        let matches = lines.indices.filter { index in Self.callID(of: lines[index])?.hasPrefix(callID) == true }
        let ids = Set(matches.compactMap { Self.callID(of: lines[$0]) })
        guard let index = matches.last, ids.count == 1, let id = ids.first else {
            let message = ids.isEmpty ? "no call \(callID.prefix(40)) in \(path)" : "\(ids.count) calls in \(path) begin with \(callID); give more of the id"
            throw LocalInputError(error: ParleyError(kind: .callNotFound, message: message), status: 1)
        }
        guard var entry = (try? JSONSerialization.jsonObject(with: Data(lines[index].utf8))) as? [String: Any],
              var record = entry["record"] as? [String: Any],
              let rated = try? JSONSerialization.jsonObject(with: JSONEncoder().encode(feedback)) else {
            throw LocalInputError(error: ParleyError(kind: .configuration, message: "the line of call \(id) in \(path) is not a call record"), status: 65)
        }
        record["feedback"] = rated
        entry["record"] = record
        guard let updated = try? JSONSerialization.data(withJSONObject: entry, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            throw LocalInputError(error: ParleyError(kind: .configuration, message: "the line of call \(id) in \(path) could not be written back"), status: 65)
        }
        lines[index] = String(decoding: updated, as: UTF8.self)
        do {
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw LocalInputError(error: ParleyError(kind: .configuration, message: "the call record file \(path): \(error.localizedDescription)"), status: 73)
        }
        return id
    }

    private static func callID(of line: String) -> String? {
        ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])?["call"] as? String
    }
}
