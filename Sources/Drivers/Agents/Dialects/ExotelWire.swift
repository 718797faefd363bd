import Parley

/// Exotel AgentStream, the Voicebot applet (docs/agents.md, "Exotel"): 16-bit little-endian PCM
/// at 8 kHz (or 16 or 24 kHz, `--agent-format`) in base64 `media` messages of 100 ms, snake_case
/// `stream_sid`/`call_sid`/`account_sid`, integer sequence numbers.
final class ExotelWire: AgentWire {
    let sampleRate: Int
    let frameSamples: Int
    let accountSid = "parley"
    let callSid = AgentWireId.hex("")
    let streamSid = AgentWireId.hex("")
    private let sequence = AgentWireSequence()
    private let chunks = AgentWireChunks(frameMilliseconds: 100)

    init(sampleRate: Int = 8000) {
        self.sampleRate = sampleRate
        frameSamples = sampleRate / 10
    }

    var platformCallId: String { callSid }

    func connected() -> String? { AgentWireJSON.text(["event": "connected"]) }

    func start(_ call: AgentWireCall) -> String {
        AgentWireJSON.text([
            "event": "start", "sequence_number": sequence.next(), "stream_sid": streamSid,
            "start": [
                "stream_sid": streamSid, "call_sid": callSid, "account_sid": accountSid,
                "from": call.from, "to": call.to, "custom_parameters": call.parameters,
                "media_format": ["encoding": "base64", "sample_rate": String(sampleRate), "bit_rate": "\(sampleRate * 16 / 1000)kbps"],
            ] as [String: Any],
        ])
    }

    func media(_ samples: UnsafeBufferPointer<Int16>, into buffer: UnsafeMutableRawBufferPointer) -> (length: Int, binary: Bool) {
        let (chunk, timestamp) = chunks.next()
        var writer = AgentWireWriter(buffer)
        writer.text(#"{"event":"media","sequence_number":"#)
        writer.number(sequence.next())
        writer.text(#","stream_sid":""#)
        writer.plain(streamSid)
        writer.text(#"","media":{"chunk":"#)
        writer.number(chunk)
        writer.text(#","timestamp":""#)
        writer.number(timestamp)
        writer.text(#"","payload":""#)
        writer.audio(samples, .linear16)
        writer.text(#""}}"#)
        return (writer.count, false)
    }

    func dtmf(_ digit: Character) -> String {
        AgentWireJSON.text(["event": "dtmf", "sequence_number": sequence.next(), "stream_sid": streamSid,
                            "dtmf": ["duration": "100", "digit": String(digit)]])
    }

    func markPlayed(_ name: String) -> String {
        AgentWireJSON.text(["event": "mark", "sequence_number": sequence.next(), "stream_sid": streamSid, "mark": ["name": name]])
    }

    func stop() -> String? {
        AgentWireJSON.text(["event": "stop", "sequence_number": sequence.next(), "stream_sid": streamSid,
                            "stop": ["call_sid": callSid, "account_sid": accountSid, "reason": "callended"]])
    }

    func read(_ message: UnsafeRawBufferPointer, binary: Bool, into samples: UnsafeMutableBufferPointer<Int16>) throws(AgentProtocolError) -> AgentWireInput {
        try AgentWireScan.readMediaMarkClear(message, binary: binary, format: .linear16, into: samples)
    }
}
