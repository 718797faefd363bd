import Foundation
import Media
import Parley
import Testing

/// Records what a call's own sink got, to check the port passes every tick on.
final class CountingSink: AudioSink, @unchecked Sendable {
    let writes = Guarded(0)
    let closed = Guarded(false)
    func write(remote: UnsafeBufferPointer<Int16>, local: UnsafeBufferPointer<Int16>) { writes.withLock { $0 += 1 } }
    func close() { closed.withLock { $0 = true } }
}

@Suite struct BotAudioPortTests {
    /// Waits for `condition`, checking every millisecond for at most two seconds.
    private func waitUntil(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<2000 {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(1))
        }
        return condition()
    }

    /// Reads one 20 ms frame at 8 kHz the way the media clock does.
    private func tick(_ port: BotAudioPort) -> [Int16] {
        var frame = [Int16](repeating: 1, count: 160)
        let playing = frame.withUnsafeMutableBufferPointer { port.read(into: $0) }
        #expect(playing, "the port itself never ends")
        return frame
    }

    @Test func playReturnsTrueOnceThePromptHasBeenReadToTheEnd() async throws {
        let port = BotAudioPort(sampleRate: 8000)
        #expect(tick(port).allSatisfy { $0 == 0 }, "silence before any prompt")
        // 160 samples of tone, 160 of silence, 160 of tone: three frames exactly.
        let playing = Task { await port.play(.sequence([.tone(frequency: 440, seconds: 0.02), .silence(seconds: 0.02), .tone(frequency: 440, seconds: 0.02)])) }
        #expect(try await waitUntil { port.isPlaying })
        let frames = (0..<3).map { _ in tick(port) }
        #expect(frames[0].contains { $0 != 0 })
        #expect(frames[1].allSatisfy { $0 == 0 })
        #expect(frames[2].contains { $0 != 0 })
        #expect(port.isPlaying, "the end is noticed on the tick after the last sample")
        #expect(tick(port).allSatisfy { $0 == 0 })
        #expect(await playing.value == true)
        #expect(!port.isPlaying)
    }

    @Test func theCallEndingStopsAPromptAndRefusesLaterOnes() async throws {
        let port = BotAudioPort(sampleRate: 8000)
        let playing = Task { await port.play(.tone(frequency: 440, seconds: 600)) }
        #expect(try await waitUntil { port.isPlaying })
        #expect(tick(port).contains { $0 != 0 })
        port.callEnded()
        #expect(await playing.value == false)
        #expect(await port.play(.tone(frequency: 440, seconds: 1)) == false)
        #expect(tick(port).allSatisfy { $0 == 0 })
    }

    @Test func cancellingPlayStopsThePrompt() async throws {
        let port = BotAudioPort(sampleRate: 8000)
        let playing = Task { await port.play(.tone(frequency: 440, seconds: 600)) }
        #expect(try await waitUntil { port.isPlaying })
        playing.cancel()
        #expect(await playing.value == false)
        #expect(!port.isPlaying)
        #expect(tick(port).allSatisfy { $0 == 0 })
    }

    @Test func aNewPromptReplacesTheOneThatIsPlaying() async throws {
        let port = BotAudioPort(sampleRate: 8000)
        let first = Task { await port.play(.tone(frequency: 440, seconds: 600)) }
        #expect(try await waitUntil { port.isPlaying })
        let second = Task { await port.play(.silence(seconds: 0.02)) }
        #expect(await first.value == false)
        #expect(tick(port).allSatisfy { $0 == 0 }, "the silence prompt now plays")
        _ = tick(port)
        #expect(await second.value == true)
    }

    @Test func recordingWritesOnlyWhatArrivesBetweenStartAndStop() throws {
        let directory = try BotFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("message.wav").path
        let callSink = CountingSink()
        let port = BotAudioPort(sampleRate: 8000, callSink: callSink)
        let frame = [Int16](repeating: 1000, count: 160)
        func write() { frame.withUnsafeBufferPointer { port.write(remote: $0, local: $0) } }

        write()
        try port.startRecording(path: path)
        for _ in 0..<10 { write() }
        port.stopRecording()
        write()
        #expect(try WAVFileSource(path: path, sampleRate: 8000).duration == 1600)
        #expect(callSink.writes.withLock { $0 } == 12)

        #expect(throws: AudioError.self) { try port.startRecording(path: directory.appendingPathComponent("no/such/dir.wav").path) }
        port.close()
        #expect(callSink.closed.withLock { $0 })
    }
}
