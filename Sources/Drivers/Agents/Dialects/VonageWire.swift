import Foundation
import Parley

/// The Vonage Voice API's WebSocket endpoint (docs/agents.md, "Vonage"): 16-bit little-endian
/// PCM at 16 kHz (or 8 or 24 kHz, `--agent-format`) as binary messages of 20 ms (640 bytes at
/// 16 kHz), events as `websocket:…` JSON; the bot flushes with `{"action":"clear"}` and marks
/// with `{"action":"notify","payload":…}`.
final class VonageWire: AgentWire {
    let sampleRate: Int
    let frameSamples: Int
    let uuid = AgentWireId.uuid()

    init(sampleRate: Int = 16000) {
        self.sampleRate = sampleRate
        frameSamples = sampleRate / 50
    }

    var platformCallId: String { uuid }

    /// Vonage opens the socket once the call is up, and its first message carries the call's headers.
    func start(_ call: AgentWireCall) -> String {
        var fields: [String: Any] = call.parameters
        fields["event"] = "websocket:connected"
        fields["content-type"] = "audio/l16;rate=\(sampleRate)"
        return AgentWireJSON.text(fields)
    }

    func media(_ samples: UnsafeBufferPointer<Int16>, into buffer: UnsafeMutableRawBufferPointer) -> (length: Int, binary: Bool) {
        let count = min(samples.count, buffer.count / 2)
        for index in 0..<count { buffer.storeBytes(of: samples[index].littleEndian, toByteOffset: index * 2, as: Int16.self) }
        return (count * 2, true)
    }

    func dtmf(_ digit: Character) -> String {
        AgentWireJSON.text(["event": "websocket:dtmf", "digit": String(digit), "duration": 100])
    }

    /// The name is the notify's payload as JSON text, echoed as it came.
    func markPlayed(_ name: String) -> String { #"{"event":"websocket:notify","payload":"# + name + "}" }

    func cleared() -> String? { AgentWireJSON.text(["event": "websocket:cleared"]) }

    func read(_ message: UnsafeRawBufferPointer, binary: Bool, into samples: UnsafeMutableBufferPointer<Int16>) throws(AgentProtocolError) -> AgentWireInput {
        if binary {
            guard message.count % 2 == 0, message.count / 2 <= samples.count else {
                throw .invalidField(event: "binary audio", field: "length", reason: "must be whole 16-bit samples, at most \(samples.count)")
            }
            for index in 0..<message.count / 2 {
                samples[index] = Int16(littleEndian: message.loadUnaligned(fromByteOffset: index * 2, as: Int16.self))
            }
            return .audio(message.count / 2)
        }
        let object = try AgentWireJSON.object(message)
        let action = try AgentWireJSON.event(object, key: "action")
        switch action {
        case "clear": return .clear
        case "notify":
            guard let payload = object["payload"], JSONSerialization.isValidJSONObject(["payload": payload]),
                  let data = try? JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys, .fragmentsAllowed]),
                  data.count <= AgentMessageParser.maximumMarkLength
            else { throw .invalidField(event: "notify", field: "payload", reason: "must be JSON of at most \(AgentMessageParser.maximumMarkLength) bytes") }
            return .mark(String(decoding: data, as: UTF8.self))
        default: throw .unknownEvent(action)
        }
    }
}
