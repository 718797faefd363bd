/// Where a session's outgoing audio comes from. Called on the media clock thread once per tick;
/// must not block or allocate.
package protocol AudioSource: AnyObject {
    /// Fills `frame` with the next mono samples at the session's rate. Returns false once the
    /// source has ended; the frame then holds silence.
    func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Bool
}

/// Where a session's received audio goes. Called on the media clock thread once per tick.
package protocol AudioSink: AnyObject {
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
    /// The process is at its limit of open files (EMFILE, or the system's, ENFILE).
    case outOfFileDescriptors(path: String)
    case notWAV(path: String, reason: String)
    case unsupportedWAV(path: String, reason: String)
    case resampler(String)
    /// Text-to-speech (espeak-ng) could not speak a prompt.
    case speech(String)
    /// No sound server answered (docs/audio.md, "When the sound server is elsewhere").
    case unavailable(String)
    case noSuchDevice(kind: String, name: String, known: [String])
    case voiceProcessing(String)

    public var description: String {
        switch self {
        case .unknownSource(let text): "unknown audio source \"\(text)\"; use tone:<Hz>, silence, stdin, <file>.wav, loop:<file>.wav, mic or mic:<device>"
        case .unknownSink(let text): "unknown audio sink \"\(text)\"; use null, stdout, <file>.wav, stereo:<file>.wav, speaker or speaker:<device>"
        case .invalidTone(let text): "invalid tone \"\(text)\"; use tone:<Hz> with 20-20000 Hz"
        case .cannotOpen(let path, let reason): "cannot open \(path): \(reason)"
        case .outOfFileDescriptors(let path): "cannot open \(path): out of file descriptors; raise ulimit -n"
        case .notWAV(let path, let reason): "\(path) is not a WAV file: \(reason)"
        case .unsupportedWAV(let path, let reason): "\(path): unsupported WAV: \(reason); use 16-bit PCM, mono or stereo"
        case .resampler(let reason): "resampler failed: \(reason)"
        case .speech(let reason): "speech synthesis failed: \(reason)"
        case .unavailable(let reason):
            "no sound server reachable (\(reason)); start PulseAudio or PipeWire, or point PULSE_SERVER at one (docs/audio.md)"
        case .noSuchDevice(let kind, let name, let known):
            "no \(kind) named \"\(name)\"; `parley devices` lists them" + (known.isEmpty ? "" : " (\(known.joined(separator: ", ")))")
        case .voiceProcessing(let reason): "voice processing failed: \(reason)"
        }
    }
}

/// A source or sink as users name it on the command line.
public enum AudioSourceSpec: Sendable, Equatable {
    case tone(frequency: Double)
    case silence
    case standardInput
    case wav(path: String, loop: Bool)
    /// A microphone through the sound server; nil is the server's default source.
    case microphone(device: String?, processing: VoiceProcessing)

    /// `tone:440`, `silence`, `stdin` (or `-`), `prompt.wav`, `loop:prompt.wav`.
    public init(_ text: String) throws(AudioError) {
        if text.hasPrefix("tone:") {
            guard let frequency = Double(text.dropFirst(5)), (20...20000).contains(frequency) else { throw .invalidTone(text) }
            self = .tone(frequency: frequency)
        } else if text == "silence" {
            self = .silence
        } else if text == "stdin" || text == "-" {
            self = .standardInput
        } else if text == "mic" {
            self = .microphone(device: nil, processing: VoiceProcessing())
        } else if text.hasPrefix("mic:"), text.count > 4 {
            self = .microphone(device: String(text.dropFirst(4)), processing: VoiceProcessing())
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
        if case .microphone(let device, _) = self { return try SoundServer.shared.checkDevice(device, sink: false) }
        guard case .wav(let path, _) = self else { return }
        let head = try LocalFile.head(path, upTo: WAVContent.maximumHeaderBytes)
        try WAVContent.checkHeader(head.bytes, path: path, fileSize: head.size)
    }

    package func makeSource(sampleRate: Int) throws(AudioError) -> any AudioSource {
        switch self {
        case .tone(let frequency): ToneSource(frequency: frequency, sampleRate: sampleRate)
        case .silence: SilenceSource()
        case .standardInput: RawPCMSource(descriptor: 0)
        case .wav(let path, loop: false): try WAVFileSource(path: path, sampleRate: sampleRate)
        case .wav(let path, loop: true): try LoopedPromptSource(path: path, sampleRate: sampleRate)
        case .microphone(let device, let processing): try MicrophoneSource(device: device, sampleRate: sampleRate, processing: processing)
        }
    }
}

public enum AudioSinkSpec: Sendable, Equatable {
    case null
    case standardOutput
    case wav(path: String, stereo: Bool)
    /// A speaker through the sound server; nil is the server's default sink.
    case speaker(device: String?)
    /// Several at once: the speaker and a recording beside it (`--tee`).
    indirect case tee([AudioSinkSpec])

    /// `null`, `stdout` (or `-`), `call.wav` (remote audio), `stereo:call.wav` (local left, remote right).
    public init(_ text: String) throws(AudioError) {
        if text == "null" {
            self = .null
        } else if text == "stdout" || text == "-" {
            self = .standardOutput
        } else if text == "speaker" {
            self = .speaker(device: nil)
        } else if text.hasPrefix("speaker:"), text.count > 8 {
            self = .speaker(device: String(text.dropFirst(8)))
        } else if text.hasPrefix("stereo:"), text.count > 7 {
            self = .wav(path: String(text.dropFirst(7)), stereo: true)
        } else if text.lowercased().hasSuffix(".wav") {
            self = .wav(path: text, stereo: false)
        } else {
            throw .unknownSink(text)
        }
    }

    /// Checks before a call that the recording can be written: its folder exists and is
    /// writable, and the file, if already there, is a writable regular file; a speaker exists on
    /// a reachable sound server. Creates nothing.
    public func check() throws(AudioError) {
        switch self {
        case .wav(let path, _): try LocalFile.checkWritable(path)
        case .speaker(let device): try SoundServer.shared.checkDevice(device, sink: true)
        case .tee(let sinks): for sink in sinks { try sink.check() }
        case .null, .standardOutput: break
        }
    }

    /// True when this sink, or one it writes to, plays on a device.
    public var usesDevice: Bool {
        switch self {
        case .speaker: true
        case .tee(let sinks): sinks.contains(where: \.usesDevice)
        default: false
        }
    }

    package func makeSink(sampleRate: Int) throws(AudioError) -> any AudioSink {
        switch self {
        case .null: return NullSink()
        case .standardOutput: return RawPCMSink(descriptor: 1)
        case .wav(let path, let stereo): return try WAVRecorder(path: path, sampleRate: sampleRate, stereo: stereo)
        case .speaker(let device): return try SpeakerSink(device: device, sampleRate: sampleRate)
        case .tee(let specs):
            var sinks: [any AudioSink] = []
            for spec in specs {
                do {
                    sinks.append(try spec.makeSink(sampleRate: sampleRate))
                } catch {
                    for sink in sinks { sink.close() }
                    throw error
                }
            }
            return TeeSink(sinks)
        }
    }
}
