import Synchronization

/// What is done to device audio between the microphone and the encoder (docs/audio.md).
public struct VoiceProcessing: Sendable, Equatable {
    public var echoCancellation = true
    public var noiseSuppression = true
    public var gainControl = true

    public init(echoCancellation: Bool = true, noiseSuppression: Bool = true, gainControl: Bool = true) {
        self.echoCancellation = echoCancellation
        self.noiseSuppression = noiseSuppression
        self.gainControl = gainControl
    }

    public static let none = VoiceProcessing(echoCancellation: false, noiseSuppression: false, gainControl: false)
}

/// Buffer sizes for device audio, chosen for the latency goals in docs/audio.md ("Latency").
enum DeviceBuffering {
    /// The server hands captured audio over in pieces this long.
    static let captureFragmentMilliseconds = 10
    /// Captured audio waiting for the media clock, at the moment it takes a tick's worth.
    static let captureTargetMilliseconds = 30
    /// The server's own playback buffer.
    static let playbackBufferMilliseconds = 20
    /// Audio for the speaker waiting for the server, at the moment the media clock adds a tick.
    static let playbackTargetMilliseconds = 10
    /// A ring this far above its target is cut back at once.
    static let resetExcessMilliseconds = 20
    static let ringMilliseconds = 500
}

/// The microphone as a call's source: audio the sound server captured, taken off the ring at the
/// media clock's pace with drift compensation, then voice processing.
final class MicrophoneSource: AudioSource {
    let stream: DeviceStream
    private let drift: DriftCompensator
    let processor: VoiceProcessor?

    init(device: String?, sampleRate: Int, processing: VoiceProcessing) throws(AudioError) {
        let frame = sampleRate * MediaClock.tickMilliseconds / 1000
        drift = try DriftCompensator(
            sampleRate: sampleRate, frameSamples: frame,
            targetFill: sampleRate * DeviceBuffering.captureTargetMilliseconds / 1000,
            resetExcess: sampleRate * DeviceBuffering.resetExcessMilliseconds / 1000)
        processor = try VoiceProcessor.make(sampleRate: sampleRate, processing: processing)
        stream = try DeviceStream(
            direction: .record, device: device, sampleRate: sampleRate,
            bufferMilliseconds: DeviceBuffering.captureFragmentMilliseconds,
            ringMilliseconds: DeviceBuffering.ringMilliseconds, name: "Parley microphone")
    }

    deinit { stream.close() }

    func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Bool {
        DeviceDelays.shared.addCapture(milliseconds: captureDelayMilliseconds)
        drift.pull(from: stream.ring, into: frame)
        processor?.processCapture(frame)
        return true
    }

    /// How long captured audio waits before the encoder takes it: the server's buffering plus
    /// the ring's fill, in milliseconds.
    var captureDelayMilliseconds: Double {
        Double(stream.serverLatencyMicroseconds.load(ordering: .relaxed)) / 1000
            + Double(stream.ring.count) * 1000 / Double(stream.sampleRate)
    }
}

/// The speaker as a call's sink: what we hear goes onto the ring with drift compensation and the
/// sound server plays it; the same audio is the echo canceller's reference.
final class SpeakerSink: AudioSink {
    let stream: DeviceStream
    private let drift: DriftCompensator
    private let closed = Atomic<Bool>(false)
    /// The microphone of the same call, whose echo canceller hears what we play.
    var microphone: MicrophoneSource?

    init(device: String?, sampleRate: Int) throws(AudioError) {
        let frame = sampleRate * MediaClock.tickMilliseconds / 1000
        drift = try DriftCompensator(
            sampleRate: sampleRate, frameSamples: frame,
            targetFill: sampleRate * DeviceBuffering.playbackTargetMilliseconds / 1000,
            resetExcess: sampleRate * DeviceBuffering.resetExcessMilliseconds / 1000)
        stream = try DeviceStream(
            direction: .playback, device: device, sampleRate: sampleRate,
            bufferMilliseconds: DeviceBuffering.playbackBufferMilliseconds,
            ringMilliseconds: DeviceBuffering.ringMilliseconds, name: "Parley speaker")
    }

    func write(remote: UnsafeBufferPointer<Int16>, local: UnsafeBufferPointer<Int16>) {
        guard !closed.load(ordering: .relaxed) else { return }
        if let microphone, let processor = microphone.processor {
            processor.echoDelayMilliseconds = Int(playbackDelayMilliseconds + microphone.captureDelayMilliseconds)
            processor.analyzeRender(remote)
        }
        DeviceDelays.shared.addPlayback(milliseconds: playbackDelayMilliseconds)
        drift.push(remote, onto: stream.ring)
    }

    func close() {
        guard !closed.exchange(true, ordering: .relaxed) else { return }
        stream.close()
    }

    /// How long received audio waits on this side of the jitter buffer: the ring's fill plus
    /// the server's buffering, in milliseconds.
    var playbackDelayMilliseconds: Double {
        Double(stream.serverLatencyMicroseconds.load(ordering: .relaxed)) / 1000
            + Double(stream.ring.count) * 1000 / Double(stream.sampleRate)
    }
}

/// Joins a call's microphone and speaker so the echo canceller hears what the speaker plays.
/// Either may be another kind of source or sink, in which case there is nothing to join.
package enum DeviceAudioLink {
    package static func link(source: any AudioSource, sink: any AudioSink) {
        guard let microphone = source as? MicrophoneSource else { return }
        if let speaker = sink as? SpeakerSink {
            speaker.microphone = microphone
        } else if let tee = sink as? TeeSink {
            for member in tee.sinks { link(source: microphone, sink: member) }
        }
    }
}

/// Writes to several sinks: the speaker and a recording beside it (`--tee`).
final class TeeSink: AudioSink {
    let sinks: [any AudioSink]

    init(_ sinks: [any AudioSink]) { self.sinks = sinks }

    func write(remote: UnsafeBufferPointer<Int16>, local: UnsafeBufferPointer<Int16>) {
        for sink in sinks { sink.write(remote: remote, local: local) }
    }

    func close() { for sink in sinks { sink.close() } }
}
