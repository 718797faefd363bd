import Foundation

/// The `--json` output contract: one object per line on standard output, `event` and `ts`
/// (ISO 8601) first, then the event's own fields in sorted order, so lines diff cleanly.
enum JSONEvents {
    /// Prints one event line and flushes it at once: a reader of a long-running command
    /// (a switch, a call) must see each event when it happens, not when a buffer fills.
    /// `date` is when the event happened, when that was before it is printed.
    static func emit(_ event: String, _ payload: some Encodable, at date: Date = Date()) {
        print(line(event, payload, at: date))
        fflush(nil)
    }

    static func line(_ event: String, _ payload: some Encodable, at date: Date) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let head = ["event": event, "ts": Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)]
        guard let headData = try? encoder.encode(head), let headText = String(data: headData, encoding: .utf8),
            let bodyData = try? encoder.encode(payload), let bodyText = String(data: bodyData, encoding: .utf8),
            bodyText.hasPrefix("{")
        else {
            return #"{"event":"error","code":"cli.json","message":"could not encode the \#(event) event as JSON"}"#
        }
        let fields = bodyText.dropFirst()
        return fields == "}" ? headText : String(headText.dropLast()) + "," + fields
    }
}

/// `{"event":"error","code":...,"message":...}` fields.
struct ErrorPayload: Encodable {
    let code: String
    let message: String
    let line: Int?
}
