import Parley

/// Reading what a bot sends back, shared by the dialects whose bots answer with Twilio's shape
/// (`media` with `media.payload`, `mark` with `mark.name`, `clear`): Twilio, Telnyx and Exotel.
extension AgentWireScan {
    static func readMediaMarkClear(_ message: UnsafeRawBufferPointer, binary: Bool, format: AgentWireAudio,
                                   into samples: UnsafeMutableBufferPointer<Int16>) throws(AgentProtocolError) -> AgentWireInput {
        guard !binary else { throw .invalidField(event: "binary message", field: "message", reason: "this dialect sends audio as base64 in media messages") }
        if equals(string("event", in: message), "media", in: message) {
            guard let payload = string("payload", in: message) else { throw .missingField(event: "media", field: "media.payload") }
            return .audio(try audio(payload, in: message, format, into: samples, event: "media"))
        }
        let object = try AgentWireJSON.object(message)
        let event = try AgentWireJSON.event(object)
        switch event {
        case "mark": return .mark(try AgentWireJSON.name(object, in: "mark", event: event))
        case "clear": return .clear
        case "media": throw .invalidField(event: event, field: "media.payload", reason: "must be a base64 string")
        default: throw .unknownEvent(event)
        }
    }
}

/// A media frame's place in the stream: its chunk number (from 1) and milliseconds since the start.
final class AgentWireChunks: Sendable {
    private let sent = AgentWireSequence()
    let frameMilliseconds: Int

    init(frameMilliseconds: Int) { self.frameMilliseconds = frameMilliseconds }

    func next() -> (chunk: Int, timestamp: Int) {
        let chunk = sent.next()
        return (chunk, (chunk - 1) * frameMilliseconds)
    }
}
