import Foundation
import Locking

/// The `--json` output contract: one object per line on standard output, `event` and `ts`
/// (ISO 8601) first, then the event's own fields in sorted order, so lines diff cleanly.
enum JSONEvents {
    /// Prints one event line at once: a reader of a long-running command (a switch, a call) must
    /// see each event when it happens, not when a buffer fills. `date` is when the event
    /// happened, when that was before it is printed.
    static func emit(_ event: String, _ payload: some Encodable, at date: Date = Date()) {
        let text = line(event, payload, at: date) + "\n"
        output.withLock { _ in writeToStandardOutput(text) }
    }

    /// Held while a line is written, so lines from different threads never interleave, even
    /// one longer than a pipe takes in one write.
    private static let output = Lock(())

    /// One write(2) a line, straight to descriptor 1. This was `print` and `fflush(nil)`, which
    /// flushes every open stdio stream, the WAV recording of every call among them: each event
    /// line cost a write(2) per recorded call and took each file's lock beside the media clock
    /// that fills it (docs/performance.md, "Call setup"). Standard output itself is not
    /// reachable from Swift 6 (a C global), and no command mixes `print` with these lines.
    private static func writeToStandardOutput(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            guard var next = bytes.baseAddress else { return }
            var left = bytes.count
            while left > 0 {
                let written = write(1, next, left)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                next += written
                left -= written
            }
        }
    }

    /// One encoder and one date style for every line: the encoder's options are fixed here and
    /// never changed, and `JSONEncoder` is safe to share for encoding.
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
    private static let timestamp = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    static func line(_ event: String, _ payload: some Encodable, at date: Date) -> String {
        // The head is what sorted keys make of `["event": event, "ts": ts]`; a timestamp holds
        // digits, `-`, `:`, `.`, `T` and `Z` only, so only the event's name needs escaping.
        guard let nameData = try? encoder.encode(event), let bodyData = try? encoder.encode(payload),
            let bodyText = String(data: bodyData, encoding: .utf8), bodyText.hasPrefix("{")
        else {
            return #"{"event":"error","code":"cli.json","message":"could not encode the \#(event) event as JSON"}"#
        }
        let head = #"{"event":"# + String(decoding: nameData, as: UTF8.self) + #","ts":""# + timestamp.format(date) + #"""#
        let fields = bodyText.dropFirst()
        return fields == "}" ? head + "}" : head + "," + fields
    }
}

/// `{"event":"error","code":...,"message":...}` fields.
struct ErrorPayload: Encodable {
    let code: String
    let message: String
    let line: Int?
}
