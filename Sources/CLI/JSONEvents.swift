import Foundation

/// The `--json` output contract: one object per line on standard output, each with `event` and
/// `ts` (ISO 8601) first, then the event's own fields.
enum JSONEvents {
    static func emit(_ event: String, _ payload: some Encodable) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let line = Line(event: event, ts: Date(), payload: payload)
        guard let data = try? encoder.encode(line), let text = String(data: data, encoding: .utf8) else {
            FileHandle.standardError.write(Data("parley: could not encode the \(event) event as JSON\n".utf8))
            return
        }
        print(text)
    }

    private struct Line<Payload: Encodable>: Encodable {
        let event: String
        let ts: Date
        let payload: Payload

        private enum Keys: String, CodingKey { case event, ts }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(event, forKey: .event)
            try container.encode(ts.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted)), forKey: .ts)
            try payload.encode(to: encoder)
        }
    }
}

/// `{"event":"error","code":...,"message":...}` fields.
struct ErrorPayload: Encodable {
    let code: String
    let message: String
    let line: Int?
}
