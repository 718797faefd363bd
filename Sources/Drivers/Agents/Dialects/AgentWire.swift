import Foundation
import Media
import Synchronization
import Parley

/// One platform dialect's messages (docs/agents.md, "Platform dialects"): what Parley sends the
/// bot as that platform would, and what it reads back. `AgentBridge` holds one per call and asks
/// it for every message that is not Parley's own protocol; the media messages are written and
/// read by hand into the link's buffers, so the link thread allocates nothing per frame.
protocol AgentWire: AnyObject, Sendable {
    /// The rate of the audio on the wire, and how many samples each media message carries.
    var sampleRate: Int { get }
    var frameSamples: Int { get }
    /// Sent as soon as the socket is open (Twilio's `connected`, …); nil when the platform sends nothing then.
    func connected() -> String?
    /// Sent when the call is up: the message that names the call, its ids and its audio format.
    func start(_ call: AgentWireCall) -> String
    /// One frame of what the far end says, written into `buffer`.
    func media(_ samples: UnsafeBufferPointer<Int16>, into buffer: UnsafeMutableRawBufferPointer) -> (length: Int, binary: Bool)
    func dtmf(_ digit: Character) -> String
    /// The bot's mark (`name` as `read` returned it) once the audio before it has played.
    func markPlayed(_ name: String) -> String
    /// The answer to the bot's clear, when the platform sends one.
    func cleared() -> String?
    /// Sent at the end of the call before the socket closes, when the platform sends one.
    func stop() -> String?
    /// A message from the bot: audio written into `samples`, a mark, a clear, or nothing to do.
    func read(_ message: UnsafeRawBufferPointer, binary: Bool, into samples: UnsafeMutableBufferPointer<Int16>) throws(AgentProtocolError) -> AgentWireInput
    /// The platform's id of the call, as its REST API names it (AgentRESTServer.swift).
    var platformCallId: String { get }
}

enum AgentWireInput: Equatable {
    case audio(Int)
    case mark(String)
    case clear
    case ignored
}

extension AgentWire {
    func cleared() -> String? { nil }
    func stop() -> String? { nil }
    func connected() -> String? { nil }
}

extension AgentDialectOptions {
    /// A new call's wire for this dialect and format, with fresh platform-shaped ids; nil for
    /// Parley's own. Throws `configuration` for a format the platform does not send.
    func makeWire() throws(ParleyError) -> (any AgentWire)? {
        guard let format = try wireFormat() else { return nil }
        switch dialect {
        case .parley: return nil
        case .twilio: return TwilioWire()
        case .telnyx: return TelnyxWire(format: format)
        case .exotel: return ExotelWire(sampleRate: format.sampleRate)
        case .plivo: return PlivoWire(format: format)
        case .vonage: return VonageWire(sampleRate: format.sampleRate)
        }
    }
}

/// Platform-shaped ids: a prefix and hex digits (Twilio's `CA…`), or a UUID.
enum AgentWireId {
    static func hex(_ prefix: String, digits: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        return prefix + String((0..<digits).map { _ in "0123456789abcdef".randomElement(using: &generator)! })
    }

    static func uuid() -> String { UUID().uuidString.lowercased() }
}

/// A counter shared by the session (control messages) and the link thread (media).
final class AgentWireSequence: Sendable {
    private let value = Atomic<Int>(0)
    func next() -> Int { value.wrappingAdd(1, ordering: .relaxed).newValue }
}

/// JSON text written straight into a link buffer, for the per-frame media messages.
struct AgentWireWriter {
    let buffer: UnsafeMutableRawBufferPointer
    private(set) var count = 0

    init(_ buffer: UnsafeMutableRawBufferPointer) { self.buffer = buffer }

    mutating func byte(_ value: UInt8) {
        guard count < buffer.count else { return }
        buffer[count] = value
        count += 1
    }

    mutating func text(_ text: StaticString) {
        text.withUTF8Buffer { for value in $0 { byte(value) } }
    }

    /// Our own ids and numbers only: nothing here needs JSON escaping.
    mutating func plain(_ text: String) {
        for value in text.utf8 { byte(value) }
    }

    /// The `media` event Twilio sends and Telnyx copies in its own spelling: μ-law in base64,
    /// its sequence, chunk and timestamp as strings. `opening` and `closing` are the platform's
    /// fragments around the shared middle (`{"event":"media","sequenceNumber":"` and
    /// `"},"streamSid":"` for Twilio), so nothing is built per frame.
    mutating func chunkedMedia(_ samples: UnsafeBufferPointer<Int16>, _ format: AgentWireAudio, sequence: Int, chunk: Int, timestamp: Int,
                               opening: StaticString, closing: StaticString, stream: String) {
        text(opening)
        number(sequence)
        text(#"","media":{"track":"inbound","chunk":""#)
        number(chunk)
        text(#"","timestamp":""#)
        number(timestamp)
        text(#"","payload":""#)
        audio(samples, format)
        text(closing)
        plain(stream)
        text(#""}"#)
    }

    mutating func number(_ value: Int) {
        guard value > 0 else { return byte(UInt8(ascii: "0")) }
        var digits = 0
        var rest = value
        while rest > 0 { digits += 1; rest /= 10 }
        guard count + digits <= buffer.count else { return }
        rest = value
        for place in stride(from: digits - 1, through: 0, by: -1) {
            buffer[count + place] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
        count += digits
    }

    /// Base64 of `length` bytes given one at a time.
    mutating func base64(length: Int, _ byteAt: (Int) -> UInt8) {
        let alphabet = AgentMediaText.alphabet
        var index = 0
        while index < length {
            let first = byteAt(index)
            let second = index + 1 < length ? byteAt(index + 1) : 0
            let third = index + 2 < length ? byteAt(index + 2) : 0
            byte(alphabet[Int(first >> 2)])
            byte(alphabet[Int((first & 0x03) << 4 | second >> 4)])
            byte(index + 1 < length ? alphabet[Int((second & 0x0F) << 2 | third >> 6)] : UInt8(ascii: "="))
            byte(index + 2 < length ? alphabet[Int(third & 0x3F)] : UInt8(ascii: "="))
            index += 3
        }
    }

    /// Samples as base64 μ-law or A-law (Twilio, Telnyx, Plivo), 16-bit little-endian PCM
    /// (Exotel, Plivo) or big-endian, as L16 travels in RTP (Telnyx).
    mutating func audio(_ samples: UnsafeBufferPointer<Int16>, _ format: AgentWireAudio) {
        switch format {
        case .muLaw: base64(length: samples.count) { G711.muLawEncode(samples[$0]) }
        case .aLaw: base64(length: samples.count) { G711.aLawEncode(samples[$0]) }
        case .linear16, .linear16BigEndian:
            let lowFirst = format == .linear16
            base64(length: samples.count * 2) {
                let sample = UInt16(bitPattern: samples[$0 / 2])
                return ($0 % 2 == 0) == lowFirst ? UInt8(sample & 0xFF) : UInt8(sample >> 8)
            }
        }
    }
}

/// How a dialect's samples are written in its messages.
enum AgentWireAudio {
    case muLaw, aLaw
    /// 16-bit PCM, little-endian (Exotel, Plivo, Vonage) or big-endian (Telnyx's RTP payloads, RFC 3551 §4.5.11).
    case linear16, linear16BigEndian

    init(_ format: AgentWireFormat, bigEndianLinear: Bool = false) {
        switch format.encoding {
        case .pcmu: self = .muLaw
        case .pcma: self = .aLaw
        case .l16: self = bigEndianLinear ? .linear16BigEndian : .linear16
        }
    }

    var bytesPerSample: Int { self == .muLaw || self == .aLaw ? 1 : 2 }
}

/// Reads a bot's message without a JSON decoder: the string value of a key anywhere in it.
/// Good enough for the messages a bot sends 50 times a second (`media`, `playAudio`); the rest go
/// through `JSONSerialization` (AgentWireJSON).
enum AgentWireScan {
    /// The bytes of the first string value of `"key"` (no escapes inside), or nil.
    static func string(_ key: StaticString, in message: UnsafeRawBufferPointer) -> Range<Int>? {
        key.withUTF8Buffer { key -> Range<Int>? in
            var start = 0
            while start + key.count + 2 <= message.count {
                if message[start] == UInt8(ascii: "\""), message[start + key.count + 1] == UInt8(ascii: "\""),
                   (0..<key.count).allSatisfy({ message[start + 1 + $0] == key[$0] }) {
                    var cursor = start + key.count + 2
                    func skipSpace() { while cursor < message.count, [0x20, 0x09, 0x0A, 0x0D].contains(message[cursor]) { cursor += 1 } }
                    skipSpace()
                    if cursor < message.count, message[cursor] == UInt8(ascii: ":") {
                        cursor += 1
                        skipSpace()
                        guard cursor < message.count, message[cursor] == UInt8(ascii: "\"") else { return nil }
                        let valueStart = cursor + 1
                        var end = valueStart
                        while end < message.count, message[end] != UInt8(ascii: "\"") {
                            if message[end] == UInt8(ascii: "\\") { return nil }
                            end += 1
                        }
                        return end < message.count ? valueStart..<end : nil
                    }
                }
                start += 1
            }
            return nil
        }
    }

    static func equals(_ range: Range<Int>?, _ expected: StaticString, in message: UnsafeRawBufferPointer) -> Bool {
        guard let range else { return false }
        return expected.withUTF8Buffer { expected in
            range.count == expected.count && zip(range, expected).allSatisfy { message[$0] == $1 }
        }
    }

    /// A base64 payload decoded into `samples`: μ-law or A-law bytes expanded, or PCM.
    static func audio(_ range: Range<Int>, in message: UnsafeRawBufferPointer, _ format: AgentWireAudio,
                      into samples: UnsafeMutableBufferPointer<Int16>, event: String) throws(AgentProtocolError) -> Int {
        let text = UnsafeRawBufferPointer(rebasing: message[range])
        let bytes = UnsafeMutableRawBufferPointer(samples)
        let capacity = format.bytesPerSample == 1 ? samples.count : bytes.count
        guard let count = AgentMediaText.decodeBytes(text, into: UnsafeMutableRawBufferPointer(rebasing: bytes[..<capacity])) else {
            throw .invalidField(event: event, field: "payload", reason: "must be base64 of at most \(samples.count) samples")
        }
        switch format {
        case .muLaw, .aLaw:
            // In place from the end: sample i's two bytes lie at or after byte i.
            let decode = format == .muLaw ? G711.muLawDecode : G711.aLawDecode
            for index in stride(from: count - 1, through: 0, by: -1) { samples[index] = decode(bytes[index]) }
            return count
        case .linear16, .linear16BigEndian:
            guard count % 2 == 0 else { throw .invalidField(event: event, field: "payload", reason: "must be whole 16-bit samples") }
            if format == .linear16 {
                for index in 0..<count / 2 { samples[index] = Int16(littleEndian: samples[index]) }
            } else {
                for index in 0..<count / 2 { samples[index] = Int16(bigEndian: samples[index]) }
            }
            return count / 2
        }
    }
}

/// The bot's other messages, rare, through Foundation's parser.
enum AgentWireJSON {
    static func object(_ message: UnsafeRawBufferPointer) throws(AgentProtocolError) -> [String: Any] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(message)) as? [String: Any] else { throw .notJSON }
        return object
    }

    static func event(_ object: [String: Any], key: String = "event") throws(AgentProtocolError) -> String {
        guard let event = object[key] as? String else { throw key == "event" ? .noEvent : .missingField(event: "message", field: key) }
        return event
    }

    /// `object[outer][name]` as a mark name: 1-256 bytes.
    static func name(_ object: [String: Any], in outer: String?, event: String) throws(AgentProtocolError) -> String {
        let container = outer.map { object[$0] as? [String: Any] } ?? object
        guard let name = container?["name"] as? String else { throw .missingField(event: event, field: outer.map { "\($0).name" } ?? "name") }
        guard !name.isEmpty, name.utf8.count <= AgentMessageParser.maximumMarkLength else {
            throw .invalidField(event: event, field: "name", reason: "must be 1-\(AgentMessageParser.maximumMarkLength) bytes")
        }
        return name
    }

    static func text(_ fields: [String: Any]) -> String { AgentEvent.json(fields) }
}
