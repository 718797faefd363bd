/// Where a session's outgoing audio comes from. Called on the media clock thread once per tick;
/// must not block or allocate.
public protocol AudioSource: AnyObject {
    /// Fills `frame` with the next mono samples at the session's rate. Returns false once the
    /// source has ended; the frame then holds silence.
    func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Bool
}

/// Where a session's received audio goes. Called on the media clock thread once per tick.
public protocol AudioSink: AnyObject {
    /// `remote` is what we heard, `local` what we sent in the same tick (equal lengths, mono).
    func write(remote: UnsafeBufferPointer<Int16>, local: UnsafeBufferPointer<Int16>)
    /// Flushes and closes; further writes are ignored.
    func close()
}

public enum AudioError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownSource(String)
    case unknownSink(String)
    case invalidTone(String)
    case cannotOpen(path: String, reason: String)
    case notWAV(path: String, reason: String)
    case unsupportedWAV(path: String, reason: String)
    case resampler(String)
    /// Text-to-speech (espeak-ng) could not speak a prompt.
    case speech(String)

    public var description: String {
        switch self {
        case .unknownSource(let text): "unknown audio source \"\(text)\"; use tone:<Hz>, silence, stdin, <file>.wav or loop:<file>.wav"
        case .unknownSink(let text): "unknown audio sink \"\(text)\"; use null, stdout, <file>.wav or stereo:<file>.wav"
        case .invalidTone(let text): "invalid tone \"\(text)\"; use tone:<Hz> with 20-20000 Hz"
        case .cannotOpen(let path, let reason): "cannot open \(path): \(reason)"
        case .notWAV(let path, let reason): "\(path) is not a WAV file: \(reason)"
        case .unsupportedWAV(let path, let reason): "\(path): unsupported WAV: \(reason); use 16-bit PCM, mono or stereo"
        case .resampler(let reason): "resampler failed: \(reason)"
        case .speech(let reason): "speech synthesis failed: \(reason)"
        }
    }
}

/// A source or sink as users name it on the command line.
public enum AudioSourceSpec: Sendable, Equatable {
    case tone(frequency: Double)
    case silence
    case standardInput
    case wav(path: String, loop: Bool)

    /// `tone:440`, `silence`, `stdin` (or `-`), `prompt.wav`, `loop:prompt.wav`.
    public init(_ text: String) throws(AudioError) {
        if text.hasPrefix("tone:") {
            guard let frequency = Double(text.dropFirst(5)), (20...20000).contains(frequency) else { throw .invalidTone(text) }
            self = .tone(frequency: frequency)
        } else if text == "silence" {
            self = .silence
        } else if text == "stdin" || text == "-" {
            self = .standardInput
        } else if text.hasPrefix("loop:"), text.count > 5 {
            self = .wav(path: String(text.dropFirst(5)), loop: true)
        } else if text.lowercased().hasSuffix(".wav") {
            self = .wav(path: text, loop: false)
        } else {
            throw .unknownSource(text)
        }
    }

    /// Checks what can be checked before a call: a WAV file is there, readable, and one Parley
    /// plays (16-bit PCM, mono or stereo). Nothing is played or kept.
    /// Reads only the header (at most `WAVContent.maximumHeaderBytes`), never the samples.
    public func check() throws(AudioError) {
        guard case .wav(let path, _) = self else { return }
        let head = try LocalFile.head(path, upTo: WAVContent.maximumHeaderBytes)
        try WAVContent.checkHeader(head.bytes, path: path, fileSize: head.size)
    }

    public func makeSource(sampleRate: Int) throws(AudioError) -> any AudioSource {
        switch self {
        case .tone(let frequency): ToneSource(frequency: frequency, sampleRate: sampleRate)
        case .silence: SilenceSource()
        case .standardInput: RawPCMSource(descriptor: 0)
        case .wav(let path, loop: false): try WAVFileSource(path: path, sampleRate: sampleRate)
        case .wav(let path, loop: true): try LoopedPromptSource(path: path, sampleRate: sampleRate)
        }
    }
}

public enum AudioSinkSpec: Sendable, Equatable {
    case null
    case standardOutput
    case wav(path: String, stereo: Bool)

    /// `null`, `stdout` (or `-`), `call.wav` (remote audio), `stereo:call.wav` (local left, remote right).
    public init(_ text: String) throws(AudioError) {
        if text == "null" {
            self = .null
        } else if text == "stdout" || text == "-" {
            self = .standardOutput
        } else if text.hasPrefix("stereo:"), text.count > 7 {
            self = .wav(path: String(text.dropFirst(7)), stereo: true)
        } else if text.lowercased().hasSuffix(".wav") {
            self = .wav(path: text, stereo: false)
        } else {
            throw .unknownSink(text)
        }
    }

    /// Checks before a call that the recording can be written: its folder exists and is
    /// writable, and the file, if already there, is a writable regular file. Creates nothing.
    public func check() throws(AudioError) {
        guard case .wav(let path, _) = self else { return }
        try LocalFile.checkWritable(path)
    }

    public func makeSink(sampleRate: Int) throws(AudioError) -> any AudioSink {
        switch self {
        case .null: NullSink()
        case .standardOutput: RawPCMSink(descriptor: 1)
        case .wav(let path, let stereo): try WAVRecorder(path: path, sampleRate: sampleRate, stereo: stereo)
        }
    }
}
