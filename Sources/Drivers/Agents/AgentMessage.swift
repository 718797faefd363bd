import Foundation
import Parley

/// The agent protocol's version (docs/agents.md). A program's `hello` must name it.
public enum AgentProtocol {
    public static let version = 1
    public static let sampleRates = [8000, 16000, 24000, 48000]
}

/// How a program wants its audio: binary WebSocket frames, or base64 in JSON `media` messages.
public enum AgentAudioEncoding: String, Sendable {
    case binary
    case base64
}

/// What a program may send, parsed (docs/agents.md, "From the program").
enum AgentCommand: Sendable, Equatable {
    case hello(version: Int, sampleRate: Int, audio: AgentAudioEncoding)
    case media(payload: [Int16])
    case mark(String)
    case clear
    case dtmf(String)
    case hangup(cause: String?)
    case transfer(String)
    case hold
    case unhold
    case answer
    case reject(cause: String?)
    case say(text: String, voice: String?)
    /// Not a message: the bridge refused a hello of another version (the session closes the link).
    case versionRefused(Int)
    /// Not a message: a `say` with its place in the downlink held by the bridge (`ticket`).
    case speak(text: String, voice: String?, ticket: Int)
}

/// Why a program's message was refused; sent back as an `error` event, and the call goes on.
public enum AgentProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    case notJSON
    case noEvent
    case unknownEvent(String)
    case missingField(event: String, field: String)
    case invalidField(event: String, field: String, reason: String)
    case unsupportedVersion(Int)
    case helloFirst
    case notNow(event: String, reason: String)

    /// The `code` of the error event.
    public var code: String {
        switch self {
        case .notJSON: "invalid-json"
        case .noEvent: "missing-event"
        case .unknownEvent: "unknown-event"
        case .missingField: "missing-field"
        case .invalidField: "invalid-field"
        case .unsupportedVersion: "unsupported-version"
        case .helloFirst: "hello-first"
        case .notNow: "not-now"
        }
    }

    public var description: String {
        switch self {
        case .notJSON: "the message is not a JSON object"
        case .noEvent: "the message has no string \"event\" field"
        case .unknownEvent(let name): "unknown event \"\(name.prefix(40))\""
        case .missingField(let event, let field): "\(event) needs \"\(field)\""
        case .invalidField(let event, let field, let reason): "\(event): \"\(field)\" \(reason)"
        case .unsupportedVersion(let version): "protocol version \(version) is not supported; this Parley speaks version \(AgentProtocol.version)"
        case .helloFirst: "the first message must be hello"
        case .notNow(let event, let reason): "\(event) now: \(reason)"
        }
    }
}

enum AgentMessageParser {
    /// The longest text a `say` may carry, and a mark's name.
    static let maximumSayLength = 4000
    static let maximumMarkLength = 256

    static func parse(_ bytes: UnsafeRawBufferPointer) throws(AgentProtocolError) -> AgentCommand {
        let fields = try Fields.decode(Data(bytes))
        guard let event = fields.event else { throw .noEvent }
        switch event {
        case "hello":
            let version = try fields.required(fields.version, "version", in: event)
            guard version == AgentProtocol.version else { throw .unsupportedVersion(version) }
            let rate = try fields.required(fields.sampleRate, "sampleRate", in: event)
            guard AgentProtocol.sampleRates.contains(rate) else {
                throw .invalidField(event: event, field: "sampleRate", reason: "must be one of 8000, 16000, 24000, 48000")
            }
            let audioName = fields.audio ?? AgentAudioEncoding.binary.rawValue
            guard let audio = AgentAudioEncoding(rawValue: audioName) else { throw .invalidField(event: event, field: "audio", reason: "must be binary or base64") }
            return .hello(version: version, sampleRate: rate, audio: audio)
        case "media":
            let payload = try fields.required(fields.payload, "payload", in: event)
            guard let decoded = Data(base64Encoded: payload), decoded.count % 2 == 0 else {
                throw .invalidField(event: event, field: "payload", reason: "must be base64 of 16-bit little-endian samples")
            }
            return .media(payload: decoded.withUnsafeBytes { raw in
                (0..<raw.count / 2).map { Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self)) }
            })
        case "mark":
            let name = try fields.required(fields.name, "name", in: event)
            guard !name.isEmpty, name.utf8.count <= maximumMarkLength else { throw .invalidField(event: event, field: "name", reason: "must be 1-\(maximumMarkLength) bytes") }
            return .mark(name)
        case "clear": return .clear
        case "dtmf":
            let digits = try fields.required(fields.digits, "digits", in: event)
            guard !digits.isEmpty, digits.count <= 64, digits.allSatisfy({ "0123456789*#ABCDabcd".contains($0) }) else {
                throw .invalidField(event: event, field: "digits", reason: "must be 1-64 of 0-9 * # A-D")
            }
            return .dtmf(digits.uppercased())
        case "hangup": return .hangup(cause: try cause(fields.cause, in: event))
        case "reject": return .reject(cause: try cause(fields.cause, in: event))
        case "transfer":
            let destination = try fields.required(fields.destination, "destination", in: event)
            guard !destination.isEmpty, destination.count <= 128, !destination.contains(where: \.isWhitespace) else {
                throw .invalidField(event: event, field: "destination", reason: "must be one word of 1-128 characters")
            }
            return .transfer(destination)
        case "hold": return .hold
        case "unhold": return .unhold
        case "answer": return .answer
        case "say":
            let text = try fields.required(fields.text, "text", in: event)
            guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, text.count <= maximumSayLength else {
                throw .invalidField(event: event, field: "text", reason: "must be 1-\(maximumSayLength) characters, not only spaces")
            }
            return .say(text: text, voice: fields.voice)
        default:
            throw .unknownEvent(event)
        }
    }

    /// A hang-up cause: Q.850 names, upper case with underscores.
    private static func cause(_ cause: String?, in event: String) throws(AgentProtocolError) -> String? {
        guard let cause else { return nil }
        guard !cause.isEmpty, cause.count <= 64, cause.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber || $0 == "_") }) else {
            throw .invalidField(event: event, field: "cause", reason: "must be a cause name such as NORMAL_CLEARING (A-Z, 0-9, _)")
        }
        return cause
    }

    /// Every field any message has, typed: a field of the wrong type is refused by the decoder.
    private struct Fields: Decodable {
        var event: String?
        var version: Int?
        var sampleRate: Int?
        var audio: String?
        var payload: String?
        var name: String?
        var digits: String?
        var cause: String?
        var destination: String?
        var text: String?
        var voice: String?

        static func decode(_ data: Data) throws(AgentProtocolError) -> Fields {
            do {
                return try JSONDecoder().decode(Fields.self, from: data)
            } catch DecodingError.typeMismatch(_, let context) {
                throw Self.wrongType(context)
            } catch DecodingError.valueNotFound(_, let context) {
                throw Self.wrongType(context)
            } catch {
                throw .notJSON
            }
        }

        private static func wrongType(_ context: DecodingError.Context) -> AgentProtocolError {
            guard let key = context.codingPath.first?.stringValue else { return .notJSON }
            if key == "event" { return .noEvent }
            return .invalidField(event: "message", field: key, reason: key == "version" || key == "sampleRate" ? "must be an integer" : "must be a string")
        }

        func required<Value>(_ value: Value?, _ field: String, in event: String) throws(AgentProtocolError) -> Value {
            guard let value else { throw .missingField(event: event, field: field) }
            return value
        }
    }
}

/// What Parley sends a program (docs/agents.md, "From Parley"), as JSON text.
enum AgentEvent {
    static func json(_ fields: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    static func error(_ error: AgentProtocolError) -> String {
        json(["event": "error", "code": error.code, "message": error.description])
    }
}
