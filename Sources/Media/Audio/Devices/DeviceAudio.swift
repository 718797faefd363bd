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
    /// The server hands captured audio over in pieces this long, and (PA_STREAM_ADJUST_LATENCY)
    /// keeps about as much in the source before it does.
    static let captureFragmentMilliseconds = 5
    /// Captured audio waiting for the media clock, at the moment it takes a tick's worth: the
    /// frame and one fragment more, so a delivery late by less than a fragment still finds a
    /// whole frame waiting, whatever the phase between deliveries and ticks.
    static let captureTargetMilliseconds = MediaClock.tickMilliseconds + captureFragmentMilliseconds
    /// The server's own playback buffer.
    static let playbackBufferMilliseconds = 20
    /// Audio for the speaker waiting for the server, at the moment the media clock adds a tick.
    static let playbackTargetMilliseconds = 10
    /// Captured audio older than this waiting in the server is dropped (at most once a second).
    static let captureFlushMilliseconds = 100
    /// A ring this far above its target is cut back at once.
    static let resetExcessMilliseconds = 20
    static let ringMilliseconds = 500
    /// Delays are counted from the second second of a stream: in the first the server drains
    /// what it buffered while the stream opened (a null sink's monitor hands over half a second
    /// and more at once) and the rings are cut back to their targets.
    static let settleTicks = 1000 / MediaClock.tickMilliseconds
}

/// The microphone as a call's source: audio the sound server captured, taken off the ring at the
/// media clock's pace with drift compensation, then voice processing.
final class MicrophoneSource: AudioSource {
    let stream: DeviceStream
    private let drift: DriftCompensator
    let processor: VoiceProcessor?
    private let lastCaptureAgeMicroseconds = Atomic<Int>(0)
    private var ticks = 0

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
        let newest = stream.newestSampleMicroseconds.load(ordering: .relaxed)
        let queued = stream.ring.count + drift.heldSamples
        drift.pull(from: stream.ring, into: frame)
        processor?.processCapture(frame)
        guard newest != 0 else { return true }
        // The ring is read after the time: a delivery in between makes the figure too high,
        // never too low.
        let age = DeviceTiming.oldestCaptureAge(
            now: DeviceTiming.nowMicroseconds(), newestCaptured: newest, queuedSamples: queued, sampleRate: stream.sampleRate)
        lastCaptureAgeMicroseconds.store(age, ordering: .relaxed)
        ticks += 1
        guard ticks > DeviceBuffering.settleTicks else { return true }
        DeviceDelays.shared.addCapture(
            microseconds: age, device: stream.serverLatencyMicroseconds.load(ordering: .relaxed),
            queued: queued * 1_000_000 / stream.sampleRate)
        return true
    }

    /// How old the first sample of the last frame was when voice processing handed the frame on:
    /// the server's buffering, the time since the server's thread delivered, what waited on the
    /// ring and in the resampler, and the processing itself, in milliseconds.
    var captureDelayMilliseconds: Double {
        Double(lastCaptureAgeMicroseconds.load(ordering: .relaxed)) / 1000
    }
}

/// The speaker as a call's sink: what we hear goes onto the ring with drift compensation and the
/// sound server plays it; the same audio is the echo canceller's reference.
final class SpeakerSink: AudioSink {
    let stream: DeviceStream
    private let drift: DriftCompensator
    private let closed = Atomic<Bool>(false)
    private var ticks = 0
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
        let delay = playbackDelayMilliseconds
        if let microphone, let processor = microphone.processor {
            processor.echoDelayMilliseconds = Int(delay + microphone.captureDelayMilliseconds)
            processor.analyzeRender(remote)
        }
        if stream.newestSampleMicroseconds.load(ordering: .relaxed) != 0 {
            ticks += 1
        }
        if ticks > DeviceBuffering.settleTicks {
            DeviceDelays.shared.addPlayback(microseconds: Int(delay * 1000))
        }
        drift.push(remote, onto: stream.ring)
    }

    func close() {
        guard !closed.exchange(true, ordering: .relaxed) else { return }
        stream.close()
    }

    /// How long a sample added now waits before it is heard: until the server plays what it
    /// last took, plus what waits on the ring, in milliseconds.
    var playbackDelayMilliseconds: Double {
        Double(DeviceTiming.playbackWait(
            now: DeviceTiming.nowMicroseconds(), newestPlays: stream.newestSampleMicroseconds.load(ordering: .relaxed),
            queuedSamples: stream.ring.count, sampleRate: stream.sampleRate)) / 1000
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
