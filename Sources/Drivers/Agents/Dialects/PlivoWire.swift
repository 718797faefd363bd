import Foundation
import Parley

/// Plivo Audio Streams (docs/agents.md, "Plivo"): μ-law 8 kHz (or 16-bit PCM at 8 or 16 kHz,
/// `--agent-format`, Plivo's `audio/x-l16`) in base64 `media` messages,
/// camelCase `streamId`/`callId`, integer sequence numbers; the bot plays with `playAudio`,
/// marks with `checkpoint` (answered by `playedStream`) and flushes with `clearAudio`
/// (answered by `clearedAudio`). Plivo sends no `connected` and no `stop`: the socket closes.
final class PlivoWire: AgentWire {
    let format: AgentWireFormat
    let sampleRate: Int
    let frameSamples: Int
    private let audio: AgentWireAudio
    let accountId = "MA" + AgentWireId.hex("", digits: 18).uppercased()
    let callId = AgentWireId.uuid()
    let streamId = AgentWireId.uuid()
    private let sequence = AgentWireSequence()
    private let chunks = AgentWireChunks(frameMilliseconds: 20)

    init(format: AgentWireFormat = .init(.pcmu, 8000)) {
        self.format = format
        sampleRate = format.sampleRate
        frameSamples = format.sampleRate / 50
        audio = AgentWireAudio(format)
    }

    /// Plivo's content type for the stream's encoding.
    private var contentType: String { format.encoding == .pcmu ? "audio/x-mulaw" : "audio/x-l16" }

    var platformCallId: String { callId }

    func start(_ call: AgentWireCall) -> String {
        let extraHeaders = call.parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
        return AgentWireJSON.text([
            "event": "start", "sequenceNumber": sequence.next(),
            "start": [
                "callId": callId, "streamId": streamId, "accountId": accountId, "tracks": ["inbound"],
                "mediaFormat": ["encoding": contentType, "sampleRate": sampleRate] as [String: Any],
            ] as [String: Any],
            "extra_headers": extraHeaders,
        ])
    }

    func media(_ samples: UnsafeBufferPointer<Int16>, into buffer: UnsafeMutableRawBufferPointer) -> (length: Int, binary: Bool) {
        let (chunk, timestamp) = chunks.next()
        var writer = AgentWireWriter(buffer)
        writer.text(#"{"event":"media","sequenceNumber":"#)
        writer.number(sequence.next())
        writer.text(#","streamId":""#)
        writer.plain(streamId)
        writer.text(#"","media":{"track":"inbound","timestamp":""#)
        writer.number(timestamp)
        writer.text(#"","chunk":"#)
        writer.number(chunk)
        writer.text(#","payload":""#)
        writer.audio(samples, audio)
        writer.text(#""}}"#)
        return (writer.count, false)
    }

    func dtmf(_ digit: Character) -> String {
        AgentWireJSON.text(["event": "dtmf", "sequenceNumber": sequence.next(), "streamId": streamId,
                            "dtmf": ["track": "inbound", "digit": String(digit)]])
    }

    func markPlayed(_ name: String) -> String {
        AgentWireJSON.text(["event": "playedStream", "sequenceNumber": sequence.next(), "streamId": streamId, "name": name])
    }

    func cleared() -> String? {
        AgentWireJSON.text(["event": "clearedAudio", "sequenceNumber": sequence.next(), "streamId": streamId])
    }

    func read(_ message: UnsafeRawBufferPointer, binary: Bool, into samples: UnsafeMutableBufferPointer<Int16>) throws(AgentProtocolError) -> AgentWireInput {
        guard !binary else { throw .invalidField(event: "binary message", field: "message", reason: "Plivo's bot sends audio as base64 in playAudio") }
        if AgentWireScan.equals(AgentWireScan.string("event", in: message), "playAudio", in: message) {
            let contentType = AgentWireScan.string("contentType", in: message)
            let format: AgentWireAudio
            if AgentWireScan.equals(contentType, "audio/x-mulaw", in: message) {
                format = .muLaw
            } else if AgentWireScan.equals(contentType, "audio/x-l16", in: message) {
                format = .linear16
            } else {
                throw .invalidField(event: "playAudio", field: "media.contentType", reason: "must be audio/x-mulaw or audio/x-l16")
            }
            // Plivo plays either content type; Parley reads the bot's audio at the stream's rate.
            guard AgentWireScan.integer("sampleRate", in: message) == sampleRate, format == .linear16 || sampleRate == 8000 else {
                throw .invalidField(event: "playAudio", field: "media.sampleRate", reason: "must be \(sampleRate) (the stream's rate)")
            }
            guard let payload = AgentWireScan.string("payload", in: message) else { throw .missingField(event: "playAudio", field: "media.payload") }
            return .audio(try AgentWireScan.audio(payload, in: message, format, into: samples, event: "playAudio"))
        }
        let object = try AgentWireJSON.object(message)
        let event = try AgentWireJSON.event(object)
        switch event {
        case "checkpoint": return .mark(try AgentWireJSON.name(object, in: nil, event: event))
        case "clearAudio": return .clear
        case "playAudio": throw .invalidField(event: event, field: "media.payload", reason: "must be a base64 string")
        default: throw .unknownEvent(event)
        }
    }
}

extension AgentWireScan {
    /// The first integer value of `"key"`, or nil.
    static func integer(_ key: StaticString, in message: UnsafeRawBufferPointer) -> Int? {
        key.withUTF8Buffer { key -> Int? in
            var start = 0
            while start + key.count + 2 <= message.count {
                defer { start += 1 }
                guard message[start] == UInt8(ascii: "\""), message[start + key.count + 1] == UInt8(ascii: "\""),
                      (0..<key.count).allSatisfy({ message[start + 1 + $0] == key[$0] }) else { continue }
                var cursor = start + key.count + 2
                while cursor < message.count, message[cursor] == 0x20 { cursor += 1 }
                guard cursor < message.count, message[cursor] == UInt8(ascii: ":") else { continue }
                cursor += 1
                while cursor < message.count, message[cursor] == 0x20 { cursor += 1 }
                var value = 0
                var digits = 0
                while cursor < message.count, digits < 9, (0x30...0x39).contains(message[cursor]) {
                    value = value * 10 + Int(message[cursor] - 0x30)
                    digits += 1
                    cursor += 1
                }
                return digits > 0 ? value : nil
            }
            return nil
        }
    }
}
