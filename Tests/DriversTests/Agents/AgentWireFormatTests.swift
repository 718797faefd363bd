import Foundation
import Media
import Testing

@testable import Drivers
@testable import Parley

/// Each platform's other formats (`--agent-format`, docs/agents.md "Each platform's formats"):
/// parsed, refused where the platform does not send them, and sent and read as the platform
/// does, at the wire's own rate (the call's audio runs at it: Opus at the agent's rate).
@Suite struct AgentWireFormatTests {
    private static let call = AgentWireCall(callId: "c1", direction: "incoming", from: "alice", to: "ivr", parameters: [:])

    private func bridge(_ dialect: AgentDialect, _ format: String) throws -> AgentBridge {
        let options = AgentDialectOptions(dialect: dialect, format: try AgentWireFormat(parsing: format))
        let wire = try #require(try options.makeWire())
        let bridge = AgentBridge(binaryAllowed: true, wire: wire, wake: {})
        try bridge.attach(codecRate: wire.sampleRate)
        bridge.startStreaming(start: wire.start(Self.call))
        return bridge
    }

    private enum Sent { case text([String: Any]), binary([UInt8]) }

    private func drain(_ bridge: AgentBridge) throws -> [Sent] {
        var out: [Sent] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while out.count < 1000, let next = buffer.withUnsafeMutableBytes({ bridge.nextMessage(into: $0) }) {
            if next.binary {
                out.append(.binary(Array(buffer[..<next.length])))
            } else {
                out.append(.text(try #require(try JSONSerialization.jsonObject(with: Data(buffer[..<next.length])) as? [String: Any])))
            }
        }
        return out
    }

    private func texts(_ sent: [Sent]) -> [[String: Any]] { sent.compactMap { if case .text(let object) = $0 { object } else { nil } } }

    private func payload(_ media: [String: Any]) throws -> [UInt8] {
        let text = try #require((media["media"] as? [String: Any])?["payload"] as? String)
        return [UInt8](try #require(Data(base64Encoded: text)))
    }

    /// 20 ms of the call at the wire's rate: `heard` toward the bot; what the bot queued back.
    private func tick(_ bridge: AgentBridge, rate: Int, heard: Int16 = 0) -> [Int16] {
        let remote = [Int16](repeating: heard, count: rate / 50)
        remote.withUnsafeBufferPointer { bridge.listen(to: $0) }
        var frame = [Int16](repeating: 0, count: rate / 50)
        _ = frame.withUnsafeMutableBufferPointer { bridge.read(into: $0) }
        return frame
    }

    private func send(_ text: String, to bridge: AgentBridge) {
        Array(text.utf8).withUnsafeBytes { bridge.received($0, binary: false) }
    }

    @Test func formatsAreParsedAndEachPlatformTakesOnlyWhatItSends() throws {
        #expect(try AgentWireFormat(parsing: "pcma") == AgentWireFormat(.pcma, 8000))
        #expect(try AgentWireFormat(parsing: "L16/24000") == AgentWireFormat(.l16, 24000))
        for bad in ["l16", "opus/48000", "pcmu/x", "l16/16000/2", ""] {
            #expect(throws: ParleyError.self) { try AgentWireFormat(parsing: bad) }
        }
        #expect(try AgentDialectOptions(dialect: .twilio).wireFormat() == AgentWireFormat(.pcmu, 8000))
        #expect(try AgentDialectOptions(dialect: .vonage).wireFormat() == AgentWireFormat(.l16, 16000))
        #expect(try AgentDialectOptions(dialect: .parley).wireFormat() == nil)
        let refused: [(AgentDialect, AgentWireFormat)] = [
            (.twilio, .init(.pcma, 8000)), (.telnyx, .init(.l16, 24000)), (.exotel, .init(.pcmu, 8000)),
            (.plivo, .init(.l16, 24000)), (.vonage, .init(.pcmu, 8000)), (.parley, .init(.l16, 16000)),
        ]
        for (dialect, format) in refused {
            let options = AgentDialectOptions(dialect: dialect, format: format)
            #expect(throws: ParleyError.self, "\(dialect) \(format)") { try options.wireFormat() }
            #expect(throws: ParleyError.self, "\(dialect) \(format)") { try options.makeWire() }
        }
        do {
            _ = try AgentDialectOptions(dialect: .telnyx, format: .init(.l16, 24000)).wireFormat()
            Issue.record("telnyx took l16/24000")
        } catch {
            #expect(error.kind == .configuration)
            #expect(error.message == "--agent-format l16/24000: telnyx does not send it; it sends pcmu/8000, pcma/8000, l16/16000 (the first is its default)")
        }
    }

    @Test func telnyxPCMAIsALawBothWays() throws {
        let bridge = try bridge(.telnyx, "pcma")
        let start = try #require(texts(try drain(bridge)).last)
        #expect((start["start"] as? [String: Any])?["media_format"] as? NSDictionary == ["encoding": "PCMA", "sample_rate": 8000, "channels": 1])
        _ = tick(bridge, rate: 8000, heard: 1000)
        let media = try #require(texts(try drain(bridge)).first)
        #expect(try payload(media) == [UInt8](repeating: G711.aLawEncode(1000), count: 160))
        send(#"{"event":"media","media":{"payload":"\#(Data([UInt8](repeating: G711.aLawEncode(-3000), count: 160)).base64EncodedString())"}}"#, to: bridge)
        #expect(tick(bridge, rate: 8000) == [Int16](repeating: G711.aLawDecode(G711.aLawEncode(-3000)), count: 160))
    }

    /// Telnyx's media are RTP payloads, and L16 in RTP is big-endian (RFC 3551 §4.5.11).
    @Test func telnyxL16IsBigEndianAtSixteenKilohertz() throws {
        let bridge = try bridge(.telnyx, "l16/16000")
        let start = try #require(texts(try drain(bridge)).last)
        #expect((start["start"] as? [String: Any])?["media_format"] as? NSDictionary == ["encoding": "L16", "sample_rate": 16000, "channels": 1])
        _ = tick(bridge, rate: 16000, heard: 0x0102)
        let media = try #require(texts(try drain(bridge)).first)
        #expect(try payload(media) == Array([[UInt8]](repeating: [0x01, 0x02], count: 320).joined()))
        let spoken = Data(Array([[UInt8]](repeating: [0x12, 0x34], count: 320).joined())).base64EncodedString()
        send(#"{"event":"media","media":{"payload":"\#(spoken)"}}"#, to: bridge)
        #expect(tick(bridge, rate: 16000) == [Int16](repeating: 0x1234, count: 320))
    }

    @Test(arguments: [16000, 24000])
    func exotelSendsHundredMillisecondsAtItsRate(rate: Int) throws {
        let bridge = try bridge(.exotel, "l16/\(rate)")
        let start = try #require(texts(try drain(bridge)).last)
        #expect((start["start"] as? [String: Any])?["media_format"] as? NSDictionary == ["encoding": "base64", "sample_rate": String(rate), "bit_rate": "\(rate * 16 / 1000)kbps"])
        for _ in 0..<4 { _ = tick(bridge, rate: rate, heard: 0x0102) }
        #expect(try drain(bridge).isEmpty)
        _ = tick(bridge, rate: rate, heard: 0x0102)
        let media = try #require(texts(try drain(bridge)).first)
        #expect(try payload(media) == Array([[UInt8]](repeating: [0x02, 0x01], count: rate / 10).joined()))
    }

    @Test(arguments: [8000, 24000])
    func vonageSpeaksL16AtItsRate(rate: Int) throws {
        let bridge = try bridge(.vonage, "l16/\(rate)")
        let sent = try drain(bridge)
        #expect(texts(sent).first?["content-type"] as? String == "audio/l16;rate=\(rate)")
        _ = tick(bridge, rate: rate, heard: 7)
        let frames = try drain(bridge).compactMap { if case .binary(let bytes) = $0 { bytes } else { nil } }
        #expect(frames.map(\.count) == [rate / 50 * 2])
    }

    @Test func plivoL16AtSixteenKilohertzTakesOnlyAudioAtTheStreamsRate() throws {
        let bridge = try bridge(.plivo, "l16/16000")
        let start = try #require(texts(try drain(bridge)).last)
        #expect((start["start"] as? [String: Any])?["mediaFormat"] as? NSDictionary == ["encoding": "audio/x-l16", "sampleRate": 16000])
        let pcm = Data(Array([[UInt8]](repeating: [0x34, 0x12], count: 320).joined())).base64EncodedString()
        send(#"{"event":"playAudio","media":{"contentType":"audio/x-l16","sampleRate":16000,"payload":"\#(pcm)"}}"#, to: bridge)
        #expect(tick(bridge, rate: 16000) == [Int16](repeating: 0x1234, count: 320))
        send(#"{"event":"playAudio","media":{"contentType":"audio/x-mulaw","sampleRate":8000,"payload":"AAAA"}}"#, to: bridge)
        send(#"{"event":"playAudio","media":{"contentType":"audio/x-l16","sampleRate":8000,"payload":"AAAA"}}"#, to: bridge)
        #expect(bridge.counterSnapshot().errorsSent == 2)
        #expect(tick(bridge, rate: 16000).allSatisfy { $0 == 0 })
    }
}
