import Foundation
import Glibc
import Media
import Locking
import TestSupport
import Testing

@Suite struct AudioIOTests {
    func temporaryPath(_ name: String) -> String {
        NSTemporaryDirectory() + "parley-\(UUID().uuidString)-\(name)"
    }

    /// A WAV file written byte by byte here, independent of WAVRecorder.
    func writeWAV(path: String, rate: Int, channels: Int, bits: Int = 16, frames: [[Int16]]) {
        var bytes: [UInt8] = []
        func put32(_ value: Int) { bytes += (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        func put16(_ value: Int) { bytes += (0..<2).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        let dataLength = frames.count * channels * bits / 8
        bytes += Array("RIFF".utf8)
        put32(36 + dataLength + 12)
        bytes += Array("WAVE".utf8)
        // An unrelated chunk first, which readers must skip.
        bytes += Array("LIST".utf8)
        put32(4)
        bytes += Array("INFO".utf8)
        bytes += Array("fmt ".utf8)
        put32(16)
        put16(1)
        put16(channels)
        put32(rate)
        put32(rate * channels * bits / 8)
        put16(channels * bits / 8)
        put16(bits)
        bytes += Array("data".utf8)
        put32(dataLength)
        for frame in frames {
            for sample in frame.prefix(channels) {
                if bits == 16 { put16(Int(sample)) } else { bytes.append(UInt8(truncatingIfNeeded: sample)) }
            }
        }
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
    }

    func readAll(_ source: any AudioSource, samples: Int, frame: Int = 960) -> [Int16] {
        var output: [Int16] = []
        var buffer = [Int16](repeating: 0, count: frame)
        while output.count < samples {
            _ = buffer.withUnsafeMutableBufferPointer { source.read(into: $0) }
            output += buffer
        }
        return Array(output.prefix(samples))
    }

    @Test func namesParse() throws {
        #expect(try AudioSourceSpec("tone:440") == .tone(frequency: 440))
        #expect(try AudioSourceSpec("silence") == .silence)
        #expect(try AudioSourceSpec("-") == .standardInput)
        #expect(try AudioSourceSpec("stdin") == .standardInput)
        #expect(try AudioSourceSpec("prompt.wav") == .wav(path: "prompt.wav", loop: false))
        #expect(try AudioSourceSpec("loop:/tmp/a.WAV") == .wav(path: "/tmp/a.WAV", loop: true))
        #expect(throws: AudioError.invalidTone("tone:abc")) { try AudioSourceSpec("tone:abc") }
        #expect(throws: AudioError.invalidTone("tone:5")) { try AudioSourceSpec("tone:5") }
        #expect(throws: AudioError.unknownSource("microphone")) { try AudioSourceSpec("microphone") }
        #expect(try AudioSinkSpec("null") == .null)
        #expect(try AudioSinkSpec("stdout") == .standardOutput)
        #expect(try AudioSinkSpec("call.wav") == .wav(path: "call.wav", stereo: false))
        #expect(try AudioSinkSpec("stereo:call.wav") == .wav(path: "call.wav", stereo: true))
        #expect(throws: AudioError.unknownSink("headphones")) { try AudioSinkSpec("headphones") }
    }

    @Test(arguments: [(8000, 1), (16000, 1), (48000, 1), (8000, 2), (16000, 2), (48000, 2)])
    func wavSourceResamplesEveryRateAndLayout(rate: Int, channels: Int) throws {
        let path = temporaryPath("tone.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let tone = TestAudio.sine(440, sampleRate: rate, count: rate / 2)
        // Stereo: the tone on the left, its inverse-free copy on the right, so the mix keeps it.
        writeWAV(path: path, rate: rate, channels: channels, frames: tone.map { [$0, $0] })
        for sessionRate in [8000, 48000] {
            let source = try WAVFileSource(path: path, sampleRate: sessionRate)
            #expect(source.fileSampleRate == rate)
            #expect(source.fileChannels == channels)
            // Half a second at the session rate, within the resampler's rounding.
            #expect(abs(source.duration - sessionRate / 2) <= sessionRate / 100)
            let samples = readAll(source, samples: sessionRate / 4)
            #expect(abs(TestAudio.dominantFrequency(samples, sampleRate: sessionRate) - 440) <= 5)
            #expect(TestAudio.rms(samples[...]) > 3000)
        }
    }

    @Test func wavSourceEndsOrLoops() throws {
        let path = temporaryPath("short.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        writeWAV(path: path, rate: 8000, channels: 1, frames: (0..<100).map { [Int16($0 + 1)] })
        let once = try WAVFileSource(path: path, sampleRate: 8000)
        var frame = [Int16](repeating: 0, count: 160)
        #expect(frame.withUnsafeMutableBufferPointer { once.read(into: $0) })
        #expect(frame[99] == 100 && frame[100] == 0)
        #expect(!frame.withUnsafeMutableBufferPointer { once.read(into: $0) })

        let looped = try WAVFileSource(path: path, sampleRate: 8000, loop: true)
        #expect(frame.withUnsafeMutableBufferPointer { looped.read(into: $0) })
        #expect(frame[99] == 100 && frame[100] == 1 && frame[159] == 60)
    }

    @Test func badFilesGiveTypedErrors() throws {
        let path = temporaryPath("bad.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = FileManager.default.createFile(atPath: path, contents: Data("hello, not audio".utf8))
        #expect(throws: AudioError.notWAV(path: path, reason: "no RIFF/WAVE header")) { try WAVFileSource(path: path, sampleRate: 8000) }
        writeWAV(path: path, rate: 8000, channels: 1, bits: 8, frames: [[1], [2]])
        #expect(throws: AudioError.unsupportedWAV(path: path, reason: "format 1 with 8 bits")) { try WAVFileSource(path: path, sampleRate: 8000) }
        #expect(throws: AudioError.cannotOpen(path: "/nonexistent/x.wav", reason: "no such file")) { try WAVFileSource(path: "/nonexistent/x.wav", sampleRate: 8000) }
    }

    @Test func aTruncatedWAVIsRefusedAndAnUnfinishedOnePlaysToItsEnd() throws {
        let path = temporaryPath("cut.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        writeWAV(path: path, rate: 8000, channels: 1, frames: (1...100).map { [Int16($0)] })
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let dataChunk = try #require((0..<(bytes.count - 4)).first { bytes[$0..<($0 + 4)].elementsEqual("data".utf8) })
        let dataSizeOffset = dataChunk + 4
        func setDataSize(_ size: Int) { for index in 0..<4 { bytes[dataSizeOffset + index] = UInt8(truncatingIfNeeded: size >> (8 * index)) } }
        // The header says 479 KB of samples; the file holds 16 bytes of them.
        setDataSize(479_000)
        try Data(bytes.prefix(dataChunk + 8 + 16)).write(to: URL(fileURLWithPath: path))
        let truncated = AudioError.notWAV(path: path, reason: "truncated: its data chunk says 479000 bytes of samples, the file holds 16")
        #expect(throws: truncated) { try WAVFileSource(path: path, sampleRate: 8000) }
        #expect(throws: truncated) { try AudioSourceSpec.wav(path: path, loop: false).check() }
        // A recorder that never wrote its sizes (0 or a stream's 0xFFFFFFFF): every sample plays.
        for placeholder in [0, 0xFFFF_FFFF] {
            setDataSize(placeholder)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let source = try WAVFileSource(path: path, sampleRate: 8000)
            #expect(source.duration == 100)
        }
    }

    @Test func checkingAFIFONamedLikeAWAVRefusesItWithoutHanging() async throws {
        let path = temporaryPath("pipe.wav")
        try #require(mkfifo(path, 0o600) == 0)
        defer { try? FileManager.default.removeItem(atPath: path) }
        // No writer ever opens the FIFO: a blocking open or read would wait forever.
        let outcome = Lock<AudioError??>(nil)
        let checker = Thread {
            do throws(AudioError) {
                try AudioSourceSpec.wav(path: path, loop: false).check()
                outcome.withLock { $0 = .some(nil) }
            } catch {
                outcome.withLock { $0 = .some(error) }
            }
        }
        checker.start()
        try await waitUntil("the check of a FIFO to return", within: 5) { outcome.withLock { $0 } != nil }
        let result = try #require(outcome.withLock { $0 }, "the check of a FIFO returned within 5 s")
        #expect(result == .cannotOpen(path: path, reason: "it is not a regular file"))
        #expect(throws: AudioError.cannotOpen(path: path, reason: "it is not a regular file")) { try WAVFileSource(path: path, sampleRate: 8000) }
    }

    @Test func checkingAWAVReadsItsHeaderOnly() throws {
        let path = temporaryPath("long.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        // Two seconds at 48 kHz stereo (384 KB): more than the header check reads, and still valid.
        writeWAV(path: path, rate: 48000, channels: 2, frames: [[Int16]](repeating: [1, 2], count: 48000 * 2))
        try AudioSourceSpec.wav(path: path, loop: false).check()
        // A chunk before the samples larger than what the check reads: refused, with why.
        var bytes = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVE".utf8) + Array("LIST".utf8)
        let listSize = 200_000
        bytes += (0..<4).map { UInt8(truncatingIfNeeded: listSize >> (8 * $0)) } + [UInt8](repeating: 0, count: listSize)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(throws: AudioError.notWAV(path: path, reason: "no data chunk in its first 65536 bytes")) {
            try AudioSourceSpec.wav(path: path, loop: false).check()
        }
    }

    @Test func recorderWritesStereoLocalLeftRemoteRight() throws {
        let path = temporaryPath("call.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorder = try WAVRecorder(path: path, sampleRate: 16000, stereo: true)
        let local = TestAudio.sine(300, sampleRate: 16000, count: 16000)
        let remote = TestAudio.sine(1200, sampleRate: 16000, count: 16000)
        for start in stride(from: 0, to: 16000, by: 320) {
            remote[start..<(start + 320)].withUnsafeBufferPointer { r in
                local[start..<(start + 320)].withUnsafeBufferPointer { l in recorder.write(remote: r, local: l) }
            }
        }
        recorder.close()
        let bytes = [UInt8](try #require(FileManager.default.contents(atPath: path)))
        #expect(bytes.count == 44 + 16000 * 4)
        // Header sizes filled in at close.
        #expect(Array(bytes[40..<44]) == [0x00, 0xFA, 0x00, 0x00])
        var left: [Int16] = []
        var right: [Int16] = []
        for offset in stride(from: 44, to: bytes.count, by: 4) {
            left.append(Int16(bitPattern: UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8))
            right.append(Int16(bitPattern: UInt16(bytes[offset + 2]) | UInt16(bytes[offset + 3]) << 8))
        }
        #expect(left == local)
        #expect(right == remote)
        // And our own reader accepts the file (mixing the two channels).
        let source = try WAVFileSource(path: path, sampleRate: 16000)
        #expect(source.fileChannels == 2 && source.duration == 16000)
    }

    @Test func toneIsPhaseContinuousAcrossFrames() {
        let source = ToneSource(frequency: 1000, sampleRate: 8000, amplitude: 0.5)
        let framed = readAll(source, samples: 800, frame: 160)
        let whole = TestAudio.sine(1000, sampleRate: 8000, count: 800, amplitude: 0.5 * 32767)
        #expect(zip(framed, whole).allSatisfy { abs(Int($0) - Int($1)) <= 1 })
    }

    @Test func rawPCMFromAPipe() throws {
        var descriptors: [Int32] = [0, 0]
        #expect(pipe(&descriptors) == 0)
        let source = RawPCMSource(descriptor: descriptors[0])
        let samples: [Int16] = [1, -2, 300, -400, 5]
        _ = samples.withUnsafeBytes { write(descriptors[1], $0.baseAddress, $0.count) }
        var frame = [Int16](repeating: 7, count: 8)
        #expect(frame.withUnsafeMutableBufferPointer { source.read(into: $0) })
        // What has arrived plays; the rest of the frame is silence.
        #expect(frame == [1, -2, 300, -400, 5, 0, 0, 0])
        close(descriptors[1])
        #expect(!frame.withUnsafeMutableBufferPointer { source.read(into: $0) })
        close(descriptors[0])
    }
}
