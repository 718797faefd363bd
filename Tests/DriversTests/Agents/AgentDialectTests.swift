import Foundation
import Media
import Testing

@testable import Drivers
@testable import Parley

/// Each platform dialect (docs/agents.md, "Platform dialects") as a bot sees it: the exact
/// messages Parley sends, and what it does with what the bot sends back, driven through the
/// bridge the way the media clock and the link thread drive it.
@Suite struct AgentDialectTests {
    private static let call = AgentWireCall(callId: "c1", direction: "incoming", from: "alice", to: "ivr", parameters: ["X-Account": "42", "lang": "en"])

    private func bridge(_ dialect: AgentDialect) throws -> AgentBridge {
        let wire: any AgentWire = try #require(try AgentDialectOptions(dialect: dialect).makeWire())
        let bridge = AgentBridge(binaryAllowed: true, wire: wire, wake: {})
        try bridge.attach(codecRate: 48000)
        return bridge
    }

    private func start(_ bridge: AgentBridge) throws -> [String] {
        let wire = try #require(bridge.wire)
        bridge.startStreaming(start: wire.start(Self.call))
        return drain(bridge).compactMap { if case .text(let text) = $0 { text } else { nil } }
    }

    private enum Sent: Equatable { case text(String), binary([UInt8]) }

    private func drain(_ bridge: AgentBridge) -> [Sent] {
        var out: [Sent] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while out.count < 1000, let next = buffer.withUnsafeMutableBytes({ bridge.nextMessage(into: $0) }) {
            out.append(next.binary ? .binary(Array(buffer[..<next.length])) : .text(String(decoding: buffer[..<next.length], as: UTF8.self)))
        }
        return out
    }

    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// The decoded `media.payload` of a media message.
    private func payload(_ media: [String: Any]) throws -> Data {
        let text = try #require((media["media"] as? [String: Any])?["payload"] as? String)
        return try #require(Data(base64Encoded: text))
    }

    private func send(_ text: String, to bridge: AgentBridge) {
        Array(text.utf8).withUnsafeBytes { bridge.received($0, binary: false) }
    }

    /// One 20 ms tick of the 48 kHz call: `heard` played out toward the bot; what the bot queued comes back.
    private func tick(_ bridge: AgentBridge, heard: Int16 = 0) -> [Int16] {
        let remote = [Int16](repeating: heard, count: 960)
        remote.withUnsafeBufferPointer { bridge.listen(to: $0) }
        var frame = [Int16](repeating: 0, count: 960)
        _ = frame.withUnsafeMutableBufferPointer { bridge.read(into: $0) }
        return frame
    }

    private func base64MuLaw(_ sample: Int16, count: Int) -> String {
        Data([UInt8](repeating: G711.muLawEncode(sample), count: count)).base64EncodedString()
    }

    private func matches(_ text: Any?, _ pattern: String) -> Bool {
        guard let text = text as? String else { return false }
        return text.range(of: "^\(pattern)$", options: .regularExpression) != nil
    }

    // MARK: Twilio

    @Test func twilioSaysConnectedThenStartWithItsIdsAndCustomParameters() throws {
        let bridge = try bridge(.twilio)
        let sent = try start(bridge)
        #expect(sent.count == 2)
        #expect(try json(sent[0]) as NSDictionary == ["event": "connected", "protocol": "Call", "version": "1.0.0"])
        let start = try json(sent[1])
        #expect(start["event"] as? String == "start")
        #expect(start["sequenceNumber"] as? String == "1")
        let body = try #require(start["start"] as? [String: Any])
        #expect(matches(body["accountSid"], "AC[0-9a-f]{32}"))
        #expect(matches(body["callSid"], "CA[0-9a-f]{32}"))
        #expect(matches(body["streamSid"], "MZ[0-9a-f]{32}"))
        #expect(start["streamSid"] as? String == body["streamSid"] as? String)
        #expect(body["customParameters"] as? NSDictionary == ["X-Account": "42", "lang": "en"])
        #expect(body["mediaFormat"] as? NSDictionary == ["encoding": "audio/x-mulaw", "sampleRate": 8000, "channels": 1])
        // Pipecat's transport detection (runner/utils.py) looks for exactly these.
        #expect(start["event"] as? String == "start" && body["streamSid"] != nil && body["callSid"] != nil)
    }

    @Test func twilioMediaIsTwentyMillisecondsOfMuLawInOrder() throws {
        let bridge = try bridge(.twilio)
        _ = try start(bridge)
        _ = tick(bridge, heard: 3000)
        _ = tick(bridge, heard: 3000)
        let sent = drain(bridge)
        #expect(sent.count == 2)
        guard case .text(let second) = try #require(sent.last) else { Issue.record("media must be text"); return }
        let media = try json(second)
        #expect(media["event"] as? String == "media")
        #expect(media["sequenceNumber"] as? String == "3")
        let body = try #require(media["media"] as? [String: Any])
        #expect(body["track"] as? String == "inbound")
        #expect(body["chunk"] as? String == "2")
        #expect(body["timestamp"] as? String == "20")
        let audio = try payload(media)
        #expect(audio.count == 160)
        // The resampler has settled by the second frame: the tone's level, μ-law coded.
        #expect(audio.suffix(80).allSatisfy { abs(Int(G711.muLawDecode($0)) - 3000) < 200 })
    }

    @Test func twilioBotAudioPlaysItsMarkComesBackAfterItAndClearFlushes() throws {
        let bridge = try bridge(.twilio)
        _ = try start(bridge)
        let streamSid = try #require((bridge.wire as? TwilioWire)?.streamSid)
        send(#"{"event":"media","streamSid":"\#(streamSid)","media":{"payload":"\#(base64MuLaw(6000, count: 800))"}}"#, to: bridge)  // 100 ms
        send(#"{"event":"mark","streamSid":"\#(streamSid)","mark":{"name":"greeting"}}"#, to: bridge)
        var markAt: Int?
        var loud = 0
        for index in 0..<8 {
            if tick(bridge).contains(where: { abs(Int($0) - 6000) < 400 }) { loud += 1 }
            for case .text(let text) in drain(bridge) where text.contains(#""mark""#) {
                let mark = try json(text)
                #expect((mark["mark"] as? [String: Any])?["name"] as? String == "greeting")
                #expect(mark["streamSid"] as? String == streamSid)
                markAt = markAt ?? index
            }
        }
        #expect(loud >= 4)
        #expect(markAt == 4)  // after the fifth 20 ms tick: the 100 ms before the mark
        send(#"{"event":"media","streamSid":"\#(streamSid)","media":{"payload":"\#(base64MuLaw(6000, count: 8000))"}}"#, to: bridge)
        send(#"{"event":"mark","streamSid":"\#(streamSid)","mark":{"name":"flushed"}}"#, to: bridge)
        _ = tick(bridge)
        send(#"{"event":"clear","streamSid":"\#(streamSid)"}"#, to: bridge)
        _ = tick(bridge)
        // Twilio echoes a mark still waiting when the bot clears (docs/agents.md, "Twilio").
        #expect(drain(bridge).contains { if case .text(let text) = $0 { text.contains("flushed") } else { false } })
        #expect(tick(bridge).allSatisfy { abs($0) < 300 })
        #expect(bridge.counterSnapshot().clears == 1)
    }

    @Test func twilioDigitsAndStop() throws {
        let wire = TwilioWire()
        let dtmf = try json(wire.dtmf("5"))
        #expect(dtmf["event"] as? String == "dtmf")
        #expect(dtmf["dtmf"] as? NSDictionary == ["track": "inbound_track", "digit": "5"])
        let stop = try json(try #require(wire.stop()))
        #expect(stop["stop"] as? NSDictionary == ["accountSid": wire.accountSid, "callSid": wire.callSid])
    }

    // MARK: Telnyx

    @Test func telnyxStartIsSnakeCaseWithStreamIdOnTop() throws {
        let bridge = try bridge(.telnyx)
        let sent = try start(bridge)
        #expect(try json(sent[0]) as NSDictionary == ["event": "connected", "version": "1.0.0"])
        let start = try json(sent[1])
        #expect(matches(start["stream_id"], "[0-9a-f-]{36}"))
        #expect(start["sequence_number"] as? String == "1")
        let body = try #require(start["start"] as? [String: Any])
        #expect(matches(body["call_control_id"], "v3:[0-9a-f]{40}"))
        #expect(body["media_format"] as? NSDictionary == ["encoding": "PCMU", "sample_rate": 8000, "channels": 1])
        #expect(body["from"] as? String == "alice" && body["to"] as? String == "ivr")
        #expect(body["custom_parameters"] as? NSDictionary == ["X-Account": "42", "lang": "en"])
        _ = tick(bridge, heard: 1000)
        guard case .text(let text) = try #require(drain(bridge).first) else { Issue.record("media must be text"); return }
        let media = try json(text)
        #expect(media["stream_id"] as? String == start["stream_id"] as? String)
        #expect(try payload(media).count == 160)
    }

    @Test func telnyxBotMediaMarkAndClear() throws {
        let bridge = try bridge(.telnyx)
        _ = try start(bridge)
        send(#"{"event":"media","media":{"payload":"\#(base64MuLaw(-5000, count: 160))"}}"#, to: bridge)
        send(#"{"event":"mark","mark":{"name":"m1"}}"#, to: bridge)
        var heard: [Int16] = []
        for _ in 0..<4 { heard += tick(bridge) }
        #expect(heard.contains { abs(Int($0) + 5000) < 400 })
        let marks = drain(bridge).compactMap { if case .text(let text) = $0, text.contains("m1") { text } else { nil } }
        #expect(marks.count == 1)
        send(#"{"event":"clear"}"#, to: bridge)
        #expect(bridge.counterSnapshot().clears == 1)
        #expect(bridge.counterSnapshot().errorsSent == 0)
    }

    // MARK: Exotel

    @Test func exotelSendsHundredMillisecondsOfLinearPCMWithItsIds() throws {
        let bridge = try bridge(.exotel)
        let sent = try start(bridge)
        #expect(try json(sent[0]) as NSDictionary == ["event": "connected"])
        let start = try json(sent[1])
        #expect(start["sequence_number"] as? Int == 1)
        let body = try #require(start["start"] as? [String: Any])
        #expect(matches(body["stream_sid"], "[0-9a-f]{32}") && matches(body["call_sid"], "[0-9a-f]{32}"))
        #expect(body["account_sid"] as? String == "parley")
        #expect(body["media_format"] as? NSDictionary == ["encoding": "base64", "sample_rate": "8000", "bit_rate": "128kbps"])
        #expect(body["custom_parameters"] as? NSDictionary == ["X-Account": "42", "lang": "en"])
        for _ in 0..<4 { _ = tick(bridge, heard: 2000) }
        #expect(drain(bridge).isEmpty)  // 80 ms: not yet a chunk
        _ = tick(bridge, heard: 2000)
        guard case .text(let text) = try #require(drain(bridge).first) else { Issue.record("media must be text"); return }
        let media = try json(text)
        #expect(media["stream_sid"] as? String == body["stream_sid"] as? String)
        let audio = try payload(media)
        #expect(audio.count == 1600)
        let last = audio.suffix(2).withUnsafeBytes { Int16(littleEndian: $0.loadUnaligned(as: Int16.self)) }
        #expect(abs(Int(last) - 2000) < 100)
    }

    @Test func exotelBotLinearPCMPlays() throws {
        let bridge = try bridge(.exotel)
        _ = try start(bridge)
        let samples = [Int16](repeating: 7000, count: 800)
        let payload = samples.withUnsafeBytes { Data($0) }.base64EncodedString()
        send(#"{"event":"media","stream_sid":"x","media":{"payload":"\#(payload)"}}"#, to: bridge)
        var heard: [Int16] = []
        for _ in 0..<4 { heard += tick(bridge) }
        #expect(heard.filter { abs(Int($0) - 7000) < 300 }.count > 960 * 2)
    }

    // MARK: Plivo

    @Test func plivoStartsWithoutConnectedAndAnswersCheckpointAndClearAudio() throws {
        let bridge = try bridge(.plivo)
        let sent = try start(bridge)
        #expect(sent.count == 1)
        let start = try json(sent[0])
        #expect(start["event"] as? String == "start")
        #expect(start["sequenceNumber"] as? Int == 1)
        let body = try #require(start["start"] as? [String: Any])
        #expect(matches(body["callId"], "[0-9a-f-]{36}") && matches(body["streamId"], "[0-9a-f-]{36}"))
        #expect(body["mediaFormat"] as? NSDictionary == ["encoding": "audio/x-mulaw", "sampleRate": 8000])
        #expect(start["extra_headers"] as? String == "X-Account=42,lang=en")
        let streamId = try #require(body["streamId"] as? String)
        send(#"{"event":"playAudio","media":{"contentType":"audio/x-mulaw","sampleRate":8000,"payload":"\#(base64MuLaw(4000, count: 160))"},"streamId":"\#(streamId)"}"#, to: bridge)
        send(#"{"event":"checkpoint","streamId":"\#(streamId)","name":"cp"}"#, to: bridge)
        var heard: [Int16] = []
        for _ in 0..<3 { heard += tick(bridge) }
        #expect(heard.contains { abs(Int($0) - 4000) < 300 })
        let played = drain(bridge).compactMap { if case .text(let text) = $0, text.contains("playedStream") { text } else { nil } }
        #expect(try played.map { try json($0)["name"] as? String } == ["cp"])
        send(#"{"event":"clearAudio","streamId":"\#(streamId)"}"#, to: bridge)
        #expect(drain(bridge).contains { if case .text(let text) = $0 { text.contains(#""clearedAudio""#) } else { false } })
        send(#"{"event":"playAudio","media":{"contentType":"audio/x-mulaw","sampleRate":16000,"payload":"AAAA"}}"#, to: bridge)
        #expect(bridge.lastBotRefusal == .invalidField(event: "playAudio", field: "media.sampleRate", reason: "must be 8000 (the stream's rate)"))
    }

    // MARK: Vonage

    @Test func vonageIsBinaryLinear16kWithItsEvents() throws {
        let bridge = try bridge(.vonage)
        let sent = try start(bridge)
        #expect(sent.count == 1)
        #expect(try json(sent[0]) as NSDictionary == ["event": "websocket:connected", "content-type": "audio/l16;rate=16000", "X-Account": "42", "lang": "en"])
        _ = tick(bridge, heard: 1500)
        _ = tick(bridge, heard: 1500)
        let frames = drain(bridge)
        #expect(frames.count == 2)
        guard case .binary(let bytes) = try #require(frames.last) else { Issue.record("Vonage audio must be binary"); return }
        #expect(bytes.count == 640)
        #expect(abs(Int(Int16(bitPattern: UInt16(bytes[638]) | UInt16(bytes[639]) << 8)) - 1500) < 100)
        let loud = [Int16](repeating: 9000, count: 320)
        loud.withUnsafeBytes { bridge.received($0, binary: true) }
        send(#"{"action":"notify","payload":{"step":1}}"#, to: bridge)
        var heard: [Int16] = []
        for _ in 0..<3 { heard += tick(bridge) }
        #expect(heard.contains { abs(Int($0) - 9000) < 400 })
        let notes = drain(bridge).compactMap { if case .text(let text) = $0 { text } else { nil } }
        #expect(notes == [#"{"event":"websocket:notify","payload":{"step":1}}"#])
        send(#"{"action":"clear"}"#, to: bridge)
        #expect(drain(bridge) == [.text(#"{"event":"websocket:cleared"}"#)])
        #expect(try json(try #require(bridge.wire).dtmf("#")) as NSDictionary == ["event": "websocket:dtmf", "digit": "#", "duration": 100])
    }

    // MARK: Garbage

    @Test(arguments: [AgentDialect.twilio, .telnyx, .exotel, .plivo, .vonage])
    func garbageFromABotIsCountedNeverAnsweredAndTheCallGoesOn(_ dialect: AgentDialect) throws {
        let bridge = try bridge(dialect)
        _ = try start(bridge)
        let garbage = ["nonsense", "{}", #"{"event":"dance"}"#, #"{"event":"media","media":{"payload":"!!!"}}"#,
                       #"{"event":"mark","mark":{}}"#, #"{"event":"media","media":{"payload":"\#(String(repeating: "A", count: 40_000))"}}"#,
                       #"{"action":7}"#, #"{"event":"playAudio","media":{"contentType":"audio/ogg","payload":"AAAA"}}"#]
        for text in garbage { send(text, to: bridge) }
        [UInt8](repeating: 1, count: 3).withUnsafeBytes { bridge.received($0, binary: true) }
        #expect(bridge.counterSnapshot().errorsSent == garbage.count + 1)
        #expect(bridge.lastBotRefusal != nil)
        // Nothing is sent back for garbage, and the call's audio still flows (Exotel's chunks are 100 ms).
        for _ in 0..<6 { _ = tick(bridge, heard: 1000) }
        let sent = drain(bridge)
        #expect(!sent.isEmpty)
        #expect(!sent.contains { if case .text(let text) = $0 { text.contains("error") } else { false } })
    }

    @Test func parametersAreCheckedWhenParsed() throws {
        #expect(try AgentParameter(parsing: "lang=en=GB") == AgentParameter(name: "lang", value: "en=GB"))
        #expect(throws: ParleyError.self) { try AgentParameter(parsing: "novalue") }
        #expect(throws: ParleyError.self) { try AgentParameter(parsing: "=x") }
        #expect(throws: ParleyError.self) { try AgentParameter(parsing: "a=\u{7}") }
        #expect(throws: ParleyError.self) { try AgentParameter(parsing: "a=" + String(repeating: "x", count: 257)) }
    }
}
