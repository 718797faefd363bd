import Foundation
import Parley

/// Telnyx Media Streaming (docs/agents.md, "Telnyx"): PCMU 8 kHz (or PCMA, or L16 at 16 kHz,
/// `--agent-format`) RTP payloads in base64 `media` messages, snake_case fields, `stream_id` at
/// the top and `start.call_control_id`.
final class TelnyxWire: AgentWire {
    let format: AgentWireFormat
    let sampleRate: Int
    let frameSamples: Int
    /// L16 as an RTP payload carries it: big-endian.
    private let audio: AgentWireAudio
    let callControlId = "v3:" + AgentWireId.hex("", digits: 40)
    let streamId = AgentWireId.uuid()
    let userId = AgentWireId.uuid()
    private let sequence = AgentWireSequence()
    private let chunks = AgentWireChunks(frameMilliseconds: 20)

    init(format: AgentWireFormat = .init(.pcmu, 8000)) {
        self.format = format
        sampleRate = format.sampleRate
        frameSamples = format.sampleRate / 50
        audio = AgentWireAudio(format, bigEndianLinear: true)
    }

    var platformCallId: String { callControlId }

    func connected() -> String? { AgentWireJSON.text(["event": "connected", "version": "1.0.0"]) }

    func start(_ call: AgentWireCall) -> String {
        AgentWireJSON.text([
            "event": "start", "sequence_number": String(sequence.next()), "stream_id": streamId,
            "start": [
                "user_id": userId, "call_control_id": callControlId, "client_state": "", "from": call.from, "to": call.to,
                "custom_parameters": call.parameters,
                "media_format": ["encoding": format.encoding.rawValue.uppercased(), "sample_rate": sampleRate, "channels": 1] as [String: Any],
            ] as [String: Any],
        ])
    }

    func media(_ samples: UnsafeBufferPointer<Int16>, into buffer: UnsafeMutableRawBufferPointer) -> (length: Int, binary: Bool) {
        let (chunk, timestamp) = chunks.next()
        var writer = AgentWireWriter(buffer)
        writer.chunkedMedia(samples, audio, sequence: sequence.next(), chunk: chunk, timestamp: timestamp,
                            opening: #"{"event":"media","sequence_number":""#, closing: #""},"stream_id":""#, stream: streamId)
        return (writer.count, false)
    }

    func dtmf(_ digit: Character) -> String {
        AgentWireJSON.text(["event": "dtmf", "stream_id": streamId, "sequence_number": String(sequence.next()),
                            "occurred_at": ISO8601DateFormatter().string(from: Date()), "dtmf": ["digit": String(digit)]])
    }

    func markPlayed(_ name: String) -> String {
        AgentWireJSON.text(["event": "mark", "sequence_number": String(sequence.next()), "stream_id": streamId, "mark": ["name": name]])
    }

    func stop() -> String? {
        AgentWireJSON.text(["event": "stop", "sequence_number": String(sequence.next()), "stream_id": streamId,
                            "stop": ["user_id": userId, "call_control_id": callControlId]])
    }

    func read(_ message: UnsafeRawBufferPointer, binary: Bool, into samples: UnsafeMutableBufferPointer<Int16>) throws(AgentProtocolError) -> AgentWireInput {
        try AgentWireScan.readMediaMarkClear(message, binary: binary, format: audio, into: samples)
    }
}
