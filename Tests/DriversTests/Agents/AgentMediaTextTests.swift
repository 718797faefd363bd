import Foundation
import Testing

@testable import Drivers
@testable import Parley

/// A `media` event read without the JSON decoder (AgentMediaText+Read.swift): the forms
/// programs write are read as the full parser reads them; anything else is left to the parser.
@Suite struct AgentMediaTextTests {
    private let samples: [Int16] = [0, 1, -1, 12345, -32768, 32767, 258, -2]

    private func fast(_ message: String, capacity: Int = 64) -> [Int16]? {
        var out = [Int16](repeating: 0, count: capacity)
        let count = Array(message.utf8).withUnsafeBytes { raw in out.withUnsafeMutableBufferPointer { AgentMediaText.read(raw, into: $0) } }
        return count.map { Array(out[..<$0]) }
    }

    private func parsed(_ message: String) -> AgentCommand? {
        try? Array(message.utf8).withUnsafeBytes { try AgentMessageParser.parse($0) }
    }

    private var payload: String { samples.withUnsafeBytes { Data($0).base64EncodedString() } }

    @Test func readsWhatParleyWritesAndWhatPythonsJSONWrites() throws {
        var buffer = [UInt8](repeating: 0, count: 256)
        let length = samples.withUnsafeBufferPointer { source in buffer.withUnsafeMutableBytes { AgentMediaText.write(source, into: $0) } }
        let written = String(decoding: buffer[..<length], as: UTF8.self)
        for message in [written, #"{"event": "media", "payload": "\#(payload)"}"#, " {\n\t\"payload\" : \"\(payload)\" ,\"event\":\"media\" } \r\n"] {
            #expect(fast(message) == samples, "\(message)")
            #expect(parsed(message) == .media(payload: samples), "\(message)")
        }
    }

    @Test func everyPaddingLengthDecodes() {
        for count in 0..<7 {
            let part = Array(samples.prefix(count))
            let text = part.withUnsafeBytes { Data($0).base64EncodedString() }
            #expect(fast(#"{"event":"media","payload":"\#(text)"}"#) == part)
        }
    }

    @Test func anythingElseIsLeftToTheParser() throws {
        let others = [
            #"{"event":"mark","name":"x"}"#,
            #"{"event":"media","payload":"\#(payload)","extra":1}"#,
            #"{"event":"media"}"#,
            #"{"event":"media","event":"media","payload":"AAA="}"#,
            #"{"event":"media","payload":"AAE"}"#,
            #"{"event":"media","payload":"AA=="}"#,
            #"{"event":"media","payload":"A*AA"}"#,
            #"{"event":"med\u0069a","payload":"AAAA"}"#,
            #"{"event":"media","payload":"AAAA"} x"#,
            #"{"event":"media","payload":"AA=A"}"#,
            #"["event","media"]"#,
            "",
        ]
        for message in others { #expect(fast(message) == nil, "\(message)") }
        // Too many samples for the buffer: the parser takes it whole.
        #expect(fast(#"{"event":"media","payload":"\#(payload)"}"#, capacity: 4) == nil)
    }
}
