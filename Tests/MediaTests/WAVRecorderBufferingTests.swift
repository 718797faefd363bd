import Foundation
import Media
import Testing

/// A recording costs few system calls: the media clock writes every 20 ms per call, and a write(2)
/// per tick or two would be a large share of a busy bot's CPU (docs/performance.md).
@Suite(.serialized) struct WAVRecorderBufferingTests {
    /// write(2) calls this process has made so far (Linux /proc/self/io).
    func writeCalls() throws -> Int {
        let text = try String(contentsOfFile: "/proc/self/io", encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("syscw:") })
        return try #require(Int(line.split(separator: " ").last ?? ""))
    }

    @Test func tenSecondsOfRecordingTakeAHandfulOfWrites() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("parley-buffering-\(UUID().uuidString).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorder = try WAVRecorder(path: path, sampleRate: 48000)
        let tick = [Int16](repeating: 1000, count: 960)
        let before = try writeCalls()
        for _ in 0..<500 {
            tick.withUnsafeBufferPointer { recorder.write(remote: $0, local: $0) }
        }
        let during = try writeCalls() - before
        recorder.close()
        // 960 000 bytes: 30 writes of 32 KiB (stdio's 4 KiB default takes about 235).
        #expect(during <= 60, "\(during) write calls for 500 ticks")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(size == 44 + 500 * 960 * 2, "every sample reached the file")
    }

    @Test func aMonoRecordingHoldsOnlyItsFileBuffer() throws {
        // A bot records every call mono; room to interleave 120 ms of stereo would cost each 23 KiB.
        let directory = FileManager.default.temporaryDirectory.path
        let mono = try WAVRecorder(path: directory + "/parley-mono-\(UUID().uuidString).wav", sampleRate: 48000)
        let stereo = try WAVRecorder(path: directory + "/parley-stereo-\(UUID().uuidString).wav", sampleRate: 48000, stereo: true)
        defer {
            for recorder in [mono, stereo] {
                recorder.close()
                try? FileManager.default.removeItem(atPath: recorder.path)
            }
        }
        #expect(mono.bufferedBytes == WAVRecorder.bufferBytes)
        #expect(stereo.bufferedBytes == WAVRecorder.bufferBytes + 2 * 5760 * 2)
    }
}
