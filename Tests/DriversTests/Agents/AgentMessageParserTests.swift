import Foundation
import Testing

@testable import Drivers
@testable import Parley

/// The agent protocol's parser (docs/agents.md): every message of the table, and a typed error
/// for each kind of bad input a program can send.
@Suite struct AgentMessageParserTests {
    private func parse(_ text: String) throws(AgentProtocolError) -> AgentCommand {
        let bytes = Array(text.utf8)
        let result = bytes.withUnsafeBytes { raw in Result { () throws(AgentProtocolError) in try AgentMessageParser.parse(raw) } }
        return try result.get()
    }

    private func error(_ text: String) -> AgentProtocolError? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func readsEveryCommand() throws {
        #expect(try parse(#"{"event":"hello","version":1,"sampleRate":16000}"#) == .hello(version: 1, sampleRate: 16000, audio: .binary))
        #expect(try parse(#"{"event":"hello","version":1,"sampleRate":8000,"audio":"base64"}"#) == .hello(version: 1, sampleRate: 8000, audio: .base64))
        #expect(try parse(#"{"event":"media","payload":"AQD//w=="}"#) == .media(payload: [1, -1]))
        #expect(try parse(#"{"event":"mark","name":"m1"}"#) == .mark("m1"))
        #expect(try parse(#"{"event":"clear"}"#) == .clear)
        #expect(try parse(#"{"event":"dtmf","digits":"12#a"}"#) == .dtmf("12#A"))
        #expect(try parse(#"{"event":"hangup"}"#) == .hangup(cause: nil))
        #expect(try parse(#"{"event":"hangup","cause":"USER_BUSY"}"#) == .hangup(cause: "USER_BUSY"))
        #expect(try parse(#"{"event":"transfer","destination":"1002"}"#) == .transfer("1002"))
        #expect(try parse(#"{"event":"hold"}"#) == .hold)
        #expect(try parse(#"{"event":"unhold"}"#) == .unhold)
        #expect(try parse(#"{"event":"answer"}"#) == .answer)
        #expect(try parse(#"{"event":"reject","cause":"CALL_REJECTED"}"#) == .reject(cause: "CALL_REJECTED"))
        #expect(try parse(#"{"event":"say","text":"Hello","voice":"en-gb"}"#) == .say(text: "Hello", voice: "en-gb"))
    }

    @Test func refusesGarbageWithATypedError() {
        #expect(error("this is not json") == .notJSON)
        #expect(error("[1,2]") == .notJSON)
        #expect(error("{}") == .noEvent)
        #expect(error(#"{"event":5}"#) == .noEvent)
        #expect(error(#"{"event":"dance"}"#) == .unknownEvent("dance"))
        #expect(error(#"{"event":"mark"}"#) == .missingField(event: "mark", field: "name"))
        #expect(error(#"{"event":"hello","version":99,"sampleRate":16000}"#) == .unsupportedVersion(99))
        #expect(error(#"{"event":"hello","version":true,"sampleRate":16000}"#)?.code == "invalid-field")
        #expect(error(#"{"event":"hello","version":1,"sampleRate":44100}"#)?.code == "invalid-field")
        #expect(error(#"{"event":"hello","version":1,"sampleRate":16000,"audio":"mp3"}"#)?.code == "invalid-field")
        #expect(error(#"{"event":"media","payload":"not base64!"}"#)?.code == "invalid-field")
        #expect(error(#"{"event":"media","payload":"AA=="}"#)?.code == "invalid-field")  // one byte: half a sample
        #expect(error(#"{"event":"dtmf","digits":"xyz"}"#)?.code == "invalid-field")
        #expect(error(#"{"event":"hangup","cause":"drop it"}"#)?.code == "invalid-field")
        #expect(error(#"{"event":"transfer","destination":"two words"}"#)?.code == "invalid-field")
        #expect(error(#"{"event":"say","text":"   "}"#)?.code == "invalid-field")
        #expect(error(#"{"event":"mark","name":""}"#)?.code == "invalid-field")
    }

    @Test func errorEventsAreJSONWithCodeAndMessage() throws {
        let text = AgentEvent.error(.unknownEvent("dance"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String])
        #expect(object == ["event": "error", "code": "unknown-event", "message": "unknown event \"dance\""])
    }

    @Test func base64MediaMatchesFoundation() {
        let samples: [Int16] = [0, 1, -1, 32767, -32768, 1234, -4321]
        for count in 0...samples.count {
            var buffer = [UInt8](repeating: 0, count: 256)
            let slice = Array(samples.prefix(count))
            let length = slice.withUnsafeBufferPointer { pointer in buffer.withUnsafeMutableBytes { AgentMediaText.write(pointer, into: $0) } }
            let bytes = slice.flatMap { [UInt8(truncatingIfNeeded: UInt16(bitPattern: $0)), UInt8(UInt16(bitPattern: $0) >> 8)] }
            #expect(String(decoding: buffer[..<length], as: UTF8.self) == #"{"event":"media","payload":""# + Data(bytes).base64EncodedString() + #""}"#)
        }
    }
}
