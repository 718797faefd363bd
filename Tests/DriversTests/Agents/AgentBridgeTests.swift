import Foundation
import Testing

@testable import Drivers
@testable import Parley

/// The bridge between a call's media clock and its agent program's link (docs/agents.md), driven
/// the way the clock and the link thread drive it: frames in and out, marks, clear, overflow.
@Suite struct AgentBridgeTests {
    private func text(_ message: String, to bridge: AgentBridge) {
        Array(message.utf8).withUnsafeBytes { bridge.received($0, binary: false) }
    }

    private func binary(_ samples: [Int16], to bridge: AgentBridge) {
        samples.withUnsafeBytes { bridge.received($0, binary: true) }
    }

    /// Everything waiting for the program: text as strings, binary as its byte count.
    private func drain(_ bridge: AgentBridge) -> [String] {
        var out: [String] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while out.count < 1000, let next = buffer.withUnsafeMutableBytes({ bridge.nextMessage(into: $0) }) {
            out.append(next.binary ? "binary \(next.length)" : String(decoding: buffer[..<next.length], as: UTF8.self))
        }
        return out
    }

    /// A bridge after hello at 16 kHz, attached to a 48 kHz call and streaming.
    private func streaming() throws -> AgentBridge {
        let bridge = AgentBridge(binaryAllowed: true, wake: {})
        text(#"{"event":"hello","version":1,"sampleRate":16000}"#, to: bridge)
        try bridge.attach(codecRate: 48000)
        bridge.startStreaming(start: #"{"event":"start"}"#)
        #expect(drain(bridge) == [#"{"event":"start"}"#])
        return bridge
    }

    private func tick(_ bridge: AgentBridge, heard: Int16 = 1000) -> [Int16] {
        let remote = [Int16](repeating: heard, count: 960)
        remote.withUnsafeBufferPointer { bridge.listen(to: $0) }
        var frame = [Int16](repeating: 0, count: 960)
        _ = frame.withUnsafeMutableBufferPointer { bridge.read(into: $0) }
        return frame
    }

    @Test func eachTickGivesTheProgramOneFrameAtItsRate() throws {
        let bridge = try streaming()
        for _ in 0..<5 { _ = tick(bridge) }
        #expect(drain(bridge) == Array(repeating: "binary 640", count: 5))
    }

    /// A call coded at the program's rate (Opus at 16 kHz, `MediaOptions.audioRate`) passes its
    /// frames through untouched both ways: no resampler's filter, no delay.
    @Test func atTheProgramsRateFramesPassSampleExactBothWays() throws {
        let bridge = AgentBridge(binaryAllowed: true, wake: {})
        text(#"{"event":"hello","version":1,"sampleRate":16000}"#, to: bridge)
        try bridge.attach(codecRate: 16000)
        bridge.startStreaming(start: #"{"event":"start"}"#)
        _ = drain(bridge)
        let heard = (0..<320).map { Int16($0 * 37 - 6000) }
        heard.withUnsafeBufferPointer { bridge.listen(to: $0) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let sent = try #require(buffer.withUnsafeMutableBytes { bridge.nextMessage(into: $0) })
        #expect(sent.binary && sent.length == 640)
        let toProgram = (0..<320).map { Int16(littleEndian: Int16(buffer[2 * $0]) | Int16(buffer[2 * $0 + 1]) << 8) }
        #expect(toProgram == heard)
        let spoken = (0..<320).map { Int16(5000 - $0 * 29) }
        binary(spoken, to: bridge)
        var frame = [Int16](repeating: 1, count: 320)
        #expect(frame.withUnsafeMutableBufferPointer { bridge.read(into: $0) })
        #expect(frame == spoken)
        #expect(frame.withUnsafeMutableBufferPointer { bridge.read(into: $0) })
        #expect(frame.allSatisfy { $0 == 0 })
    }

    @Test func aSlowProgramLosesTheOldestAudioCountedNotTheClock() throws {
        let bridge = try streaming()
        // Three seconds of ticks the program never reads: one second is kept.
        for _ in 0..<150 { _ = tick(bridge) }
        #expect(bridge.counterSnapshot().droppedToProgram == 100)
        #expect(drain(bridge).count == 50)
    }

    @Test func programAudioPlaysAtTheNextTickAndClearStopsIt() throws {
        let bridge = try streaming()
        binary([Int16](repeating: 8000, count: 16000), to: bridge)  // one second at 16 kHz
        var loud = 0
        for _ in 0..<10 where tick(bridge).contains(where: { abs($0) > 4000 }) { loud += 1 }
        #expect(loud >= 9)  // the resampler's first few milliseconds ramp up
        text(#"{"event":"clear"}"#, to: bridge)
        #expect(tick(bridge).allSatisfy { $0 == 0 } || tick(bridge).allSatisfy { abs($0) < 200 })
        #expect(tick(bridge).allSatisfy { abs($0) < 200 })
        #expect(bridge.counterSnapshot().clears == 1)
    }

    @Test func marksComeBackInOrderOnceTheirAudioHasPlayed() throws {
        let bridge = try streaming()
        binary([Int16](repeating: 8000, count: 3200), to: bridge)  // 200 ms
        text(#"{"event":"mark","name":"a"}"#, to: bridge)
        binary([Int16](repeating: 8000, count: 3200), to: bridge)
        text(#"{"event":"mark","name":"b"}"#, to: bridge)
        var echoed: [String] = []
        for index in 0..<25 {
            _ = tick(bridge)
            for message in drain(bridge) where message.contains(#""mark""#) { echoed.append("\(index) \(message)") }
        }
        #expect(echoed == [#"9 {"event":"mark","name":"a"}"#, #"19 {"event":"mark","name":"b"}"#])
    }

    @Test func aMarkAfterSayWaitsForTheSpeech() throws {
        let bridge = try streaming()
        text(#"{"event":"say","text":"hello"}"#, to: bridge)
        text(#"{"event":"mark","name":"after-say"}"#, to: bridge)
        for _ in 0..<3 { _ = tick(bridge) }
        #expect(!drain(bridge).contains { $0.contains("after-say") })
        bridge.finishSpeech(ticket: 1, samples: [Int16](repeating: 8000, count: 1600))  // 100 ms
        var echoedAt: Int?
        for index in 0..<10 {
            _ = tick(bridge)
            if drain(bridge).contains(where: { $0.contains("after-say") }) { echoedAt = echoedAt ?? index }
        }
        #expect(echoedAt == 4)
    }

    @Test func garbageGetsAnErrorAndTheBridgeGoesOn() throws {
        let bridge = try streaming()
        text("nonsense", to: bridge)
        binary([1, 2, 3], to: bridge)
        Array([UInt8(1), 2, 3]).withUnsafeBytes { bridge.received($0, binary: true) }  // odd length
        let sent = drain(bridge)
        #expect(sent.count == 2)
        #expect(sent[0].contains("invalid-json"))
        #expect(sent[1].contains("invalid-field"))
        #expect(bridge.counterSnapshot().errorsSent == 2)
    }

    @Test func nothingBeforeHello() {
        let bridge = AgentBridge(binaryAllowed: false, wake: {})
        text(#"{"event":"clear"}"#, to: bridge)
        text(#"{"event":"hello","version":1,"sampleRate":16000}"#, to: bridge)  // binary on a text link
        let sent = drain(bridge)
        #expect(sent.count == 2)
        #expect(sent[0].contains("hello-first"))
        #expect(sent[1].contains("must be base64"))
    }
}
