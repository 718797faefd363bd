import Parley

/// Twilio Media Streams (docs/agents.md, "Twilio"): μ-law 8 kHz in base64 `media` messages,
/// camelCase fields, `streamSid`/`callSid`/`accountSid` ids, string sequence numbers.
final class TwilioWire: AgentWire {
    let sampleRate = 8000
    let frameSamples = 160
    let accountSid = AgentWireId.hex("AC")
    let callSid = AgentWireId.hex("CA")
    let streamSid = AgentWireId.hex("MZ")
    private let sequence = AgentWireSequence()
    private let chunks = AgentWireChunks(frameMilliseconds: 20)

    var platformCallId: String { callSid }

    func connected() -> String? { AgentWireJSON.text(["event": "connected", "protocol": "Call", "version": "1.0.0"]) }

    func start(_ call: AgentWireCall) -> String {
        AgentWireJSON.text([
            "event": "start", "sequenceNumber": String(sequence.next()), "streamSid": streamSid,
            "start": [
                "accountSid": accountSid, "streamSid": streamSid, "callSid": callSid, "tracks": ["inbound"],
                "customParameters": call.parameters,
                "mediaFormat": ["encoding": "audio/x-mulaw", "sampleRate": 8000, "channels": 1] as [String: Any],
            ] as [String: Any],
        ])
    }

    func media(_ samples: UnsafeBufferPointer<Int16>, into buffer: UnsafeMutableRawBufferPointer) -> (length: Int, binary: Bool) {
        let (chunk, timestamp) = chunks.next()
        var writer = AgentWireWriter(buffer)
        writer.chunkedMedia(samples, .muLaw, sequence: sequence.next(), chunk: chunk, timestamp: timestamp,
                            opening: #"{"event":"media","sequenceNumber":""#, closing: #""},"streamSid":""#, stream: streamSid)
        return (writer.count, false)
    }

    func dtmf(_ digit: Character) -> String {
        AgentWireJSON.text(["event": "dtmf", "streamSid": streamSid, "sequenceNumber": String(sequence.next()),
                            "dtmf": ["track": "inbound_track", "digit": String(digit)]])
    }

    func markPlayed(_ name: String) -> String {
        AgentWireJSON.text(["event": "mark", "sequenceNumber": String(sequence.next()), "streamSid": streamSid, "mark": ["name": name]])
    }

    func stop() -> String? {
        AgentWireJSON.text(["event": "stop", "sequenceNumber": String(sequence.next()), "streamSid": streamSid,
                            "stop": ["accountSid": accountSid, "callSid": callSid]])
    }

    func read(_ message: UnsafeRawBufferPointer, binary: Bool, into samples: UnsafeMutableBufferPointer<Int16>) throws(AgentProtocolError) -> AgentWireInput {
        try AgentWireScan.readMediaMarkClear(message, binary: binary, format: .muLaw, into: samples)
    }
}
