import Foundation

/// The parts of a RIFF/WAVE file we play: 16-bit PCM, one or two channels.
struct WAVContent {
    var sampleRate: Int
    var channels: Int
    /// Interleaved samples.
    var samples: [Int16]

    /// How much of a file `checkHeader` reads: the RIFF header, `fmt ` and any chunks before
    /// `data` fit in far less.
    static let maximumHeaderBytes = 64 * 1024

    /// Checks the format from the first bytes of a file of `fileSize` bytes: parsing stops at the
    /// data chunk's header, so the samples are never read.
    static func checkHeader(_ head: [UInt8], path: String, fileSize: Int) throws(AudioError) {
        _ = try parse(head, path: path, fileSize: fileSize, samples: false)
    }

    static func parse(_ data: [UInt8], path: String) throws(AudioError) -> WAVContent {
        try parse(data, path: path, fileSize: data.count, samples: true)
    }

    /// `data` is the file's first bytes (all of them when `samples`); `fileSize` the whole size.
    private static func parse(_ data: [UInt8], path: String, fileSize: Int, samples readsSamples: Bool) throws(AudioError) -> WAVContent {
        func u16(_ offset: Int) -> Int { Int(data[offset]) | Int(data[offset + 1]) << 8 }
        func u32(_ offset: Int) -> Int { u16(offset) | u16(offset + 2) << 16 }
        guard data.count >= 12, data[0..<4].elementsEqual("RIFF".utf8), data[8..<12].elementsEqual("WAVE".utf8) else {
            throw .notWAV(path: path, reason: "no RIFF/WAVE header")
        }
        var offset = 12
        var format: (code: Int, channels: Int, rate: Int, bits: Int)?
        while offset + 8 <= data.count {
            let size = u32(offset + 4)
            let body = offset + 8
            let isFormat = data[offset..<(offset + 4)].elementsEqual("fmt ".utf8)
            guard body + size <= fileSize || data[offset..<(offset + 4)].elementsEqual("data".utf8) else {
                throw .notWAV(path: path, reason: "chunk runs past the end of the file")
            }
            if isFormat, body + size > data.count { throw .notWAV(path: path, reason: "fmt chunk too long") }
            if isFormat {
                guard size >= 16 else { throw .notWAV(path: path, reason: "fmt chunk too short") }
                var code = u16(body)
                // WAVE_FORMAT_EXTENSIBLE: the real format is the first two bytes of the sub-format GUID.
                if code == 0xFFFE && size >= 26 { code = u16(body + 24) }
                format = (code, u16(body + 2), u32(body + 4), u16(body + 14))
            } else if data[offset..<(offset + 4)].elementsEqual("data".utf8) {
                guard let format else { throw .notWAV(path: path, reason: "data before fmt") }
                guard format.code == 1, format.bits == 16 else {
                    throw .unsupportedWAV(path: path, reason: "format \(format.code) with \(format.bits) bits")
                }
                guard (1...2).contains(format.channels) else { throw .unsupportedWAV(path: path, reason: "\(format.channels) channels") }
                guard (8000...96000).contains(format.rate) else { throw .unsupportedWAV(path: path, reason: "\(format.rate) Hz") }
                // A recorder that never finished leaves the size it starts with (0, or 0xFFFFFFFF
                // for a stream): play to the file's end. Any other size past the end is a file cut
                // short, which would play as a moment of sound and then silence: refused.
                let unfinished = size == 0 || size == 0xFFFF_FFFF
                let present = fileSize - body
                guard unfinished || size <= present else {
                    throw .notWAV(path: path, reason: "truncated: its data chunk says \(size) bytes of samples, the file holds \(max(present, 0))")
                }
                guard readsSamples else { return WAVContent(sampleRate: format.rate, channels: format.channels, samples: []) }
                let end = (unfinished ? data.count : min(data.count, body + size)) & ~1
                let samples = stride(from: body, to: end, by: 2).map { Int16(bitPattern: UInt16(u16($0))) }
                return WAVContent(sampleRate: format.rate, channels: format.channels, samples: samples)
            }
            offset = body + size + (size & 1)
        }
        if data.count < fileSize { throw .notWAV(path: path, reason: "no data chunk in its first \(data.count) bytes") }
        throw .notWAV(path: path, reason: format == nil ? "no fmt chunk" : "no data chunk")
    }

    /// Mono at `rate`: channels averaged, then resampled with speexdsp.
    func mono(at rate: Int) throws(AudioError) -> [Int16] {
        var mono = samples
        if channels == 2 {
            mono = [Int16](repeating: 0, count: samples.count / 2)
            for index in mono.indices {
                let sum = Int(samples[2 * index]) + Int(samples[2 * index + 1])
                mono[index] = Int16(sum / 2)
            }
        }
        return try AudioResampler.resample(mono, from: sampleRate, to: rate)
    }
}

/// A WAV file (8/16/48 kHz or any rate, mono or stereo), converted once at open to mono at the
/// session rate; reading is a copy. With `loop`, it starts over at the end.
package final class WAVFileSource: AudioSource {
    package let path: String
    package let loop: Bool
    /// The file's own format, as read.
    package let fileSampleRate: Int
    package let fileChannels: Int
    private let samples: [Int16]
    private var position = 0

    package init(path: String, sampleRate: Int, loop: Bool = false) throws(AudioError) {
        let content = try WAVContent.parse(try LocalFile.contents(path), path: path)
        self.path = path
        self.loop = loop
        fileSampleRate = content.sampleRate
        fileChannels = content.channels
        samples = try content.mono(at: sampleRate)
    }

    /// Samples at the session rate.
    package var duration: Int { samples.count }

    package func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Bool {
        var filled = 0
        while filled < frame.count {
            if position >= samples.count {
                guard loop, !samples.isEmpty else { break }
                position = 0
            }
            let count = min(frame.count - filled, samples.count - position)
            for index in 0..<count { frame[filled + index] = samples[position + index] }
            filled += count
            position += count
        }
        for index in filled..<frame.count { frame[index] = 0 }
        return filled > 0 || frame.isEmpty
    }
}

/// Records 16-bit PCM WAV: remote audio mono, or stereo with local left and remote right. The
/// header's sizes are written on close.
package final class WAVRecorder: AudioSink {
    package let path: String
    package let sampleRate: Int
    package let stereo: Bool
    private var file: UnsafeMutablePointer<FILE>?
    private var dataBytes = 0
    private var interleaved: UnsafeMutableBufferPointer<Int16>
    package static let bufferBytes = 32768
    private let buffer: UnsafeMutablePointer<CChar>

    package init(path: String, sampleRate: Int, stereo: Bool = false, maximumFrame: Int = 5760) throws(AudioError) {
        guard let file = fopen(path, "wb") else {
            let code = errno
            if code == EMFILE || code == ENFILE { throw .outOfFileDescriptors(path: path) }
            throw .cannotOpen(path: path, reason: String(cString: strerror(code)))
        }
        // The media clock writes every tick (1920 bytes at 48 kHz); stdio's default buffer
        // would make that a write(2) every few ticks per call. 32 KiB: three a second.
        // glibc ignores the size unless it is given the buffer too.
        buffer = .allocate(capacity: Self.bufferBytes)
        setvbuf(file, buffer, _IOFBF, Self.bufferBytes)
        self.file = file
        self.path = path
        self.sampleRate = sampleRate
        self.stereo = stereo
        // Only a stereo recording interleaves; a mono one writes the remote samples as they come
        // (23 KiB less for each call a bot records, resident memory per call, docs/media.md).
        interleaved = .allocate(capacity: stereo ? 2 * maximumFrame : 0)
        writeHeader()
    }

    deinit {
        close()
        interleaved.deallocate()
        buffer.deallocate()
    }

    private var channels: Int { stereo ? 2 : 1 }

    /// Bytes the recorder holds for buffering while it records.
    package var bufferedBytes: Int { Self.bufferBytes + interleaved.count * MemoryLayout<Int16>.stride }

    private func writeHeader() {
        guard let file else { return }
        var header = [UInt8]()
        func append(_ text: String) { header += Array(text.utf8) }
        func append32(_ value: Int) { header += (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        func append16(_ value: Int) { header += (0..<2).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        append("RIFF")
        append32(36 + dataBytes)
        append("WAVEfmt ")
        append32(16)
        append16(1)
        append16(channels)
        append32(sampleRate)
        append32(sampleRate * channels * 2)
        append16(channels * 2)
        append16(16)
        append("data")
        append32(dataBytes)
        fseek(file, 0, SEEK_SET)
        fwrite(header, 1, header.count, file)
        fseek(file, 0, SEEK_END)
    }

    package func write(remote: UnsafeBufferPointer<Int16>, local: UnsafeBufferPointer<Int16>) {
        guard let file else { return }
        // WAV is little-endian, as is every host Parley runs on (x86-64, AArch64).
        if stereo {
            let count = min(remote.count, local.count, interleaved.count / 2)
            for index in 0..<count {
                interleaved[2 * index] = local[index]
                interleaved[2 * index + 1] = remote[index]
            }
            dataBytes += fwrite(interleaved.baseAddress, 4, count, file) * 4
        } else {
            dataBytes += fwrite(remote.baseAddress, 2, remote.count, file) * 2
        }
    }

    package func close() {
        guard let file else { return }
        writeHeader()
        fclose(file)
        self.file = nil
    }
}
