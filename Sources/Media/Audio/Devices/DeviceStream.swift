import CPulse
import Synchronization

/// One record or playback stream on the sound server, mono 16-bit at the call's rate (the server
/// converts to the device's format). The server's thread moves audio between the stream and
/// `ring`; the media clock moves it between `ring` and the call.
/// Unchecked: libpulse's stream is used under the main loop's lock; the media clock touches only `ring`.
final class DeviceStream: @unchecked Sendable {
    enum Direction { case record, playback }

    let direction: Direction
    let ring: SampleRing
    let sampleRate: Int
    private var stream: OpaquePointer?
    /// Samples the playback side had to invent (the ring was empty when the server asked).
    let starvedSamples = Atomic<Int>(0)
    /// Samples the record side lost (the ring was full).
    let lostSamples = Atomic<Int>(0)
    let failed = Atomic<Bool>(false)
    /// The server's own buffering (device and stream buffers), in microseconds, sampled on the
    /// server's thread whenever it moves audio.
    let serverLatencyMicroseconds = Atomic<Int>(0)
    /// When the newest sample handed over was captured (record) or will be played (playback),
    /// on `DeviceTiming`'s clock; noted with `serverLatencyMicroseconds`.
    let newestSampleMicroseconds = Atomic<Int>(0)

    /// Opens the stream; audio starts flowing once the server has set it up, without waiting here.
    /// `bufferMilliseconds` is the server-side buffer asked for (fragment size when recording,
    /// target length when playing).
    init(direction: Direction, device: String?, sampleRate: Int, bufferMilliseconds: Int, ringMilliseconds: Int, name: String) throws(AudioError) {
        self.direction = direction
        self.sampleRate = sampleRate
        ring = SampleRing(minimumCapacity: sampleRate * ringMilliseconds / 1000)
        let server = SoundServer.shared
        try server.locked { _, context throws(AudioError) in
            var spec = pa_sample_spec(format: PA_SAMPLE_S16LE, rate: UInt32(sampleRate), channels: 1)
            guard let stream = pa_stream_new(context, name, &spec, nil) else {
                throw .unavailable(String(cString: pa_strerror(pa_context_errno(context))))
            }
            self.stream = stream
            let me = Unmanaged.passUnretained(self).toOpaque()
            let bytes = UInt32(sampleRate * bufferMilliseconds / 1000 * 2)
            var attributes = pa_buffer_attr(maxlength: UInt32.max, tlength: UInt32.max, prebuf: UInt32.max, minreq: UInt32.max, fragsize: UInt32.max)
            let flags = pa_stream_flags_t(rawValue: PA_STREAM_ADJUST_LATENCY.rawValue | PA_STREAM_AUTO_TIMING_UPDATE.rawValue | PA_STREAM_INTERPOLATE_TIMING.rawValue)
            pa_stream_set_state_callback(stream, { stream, userdata in
                let me = Unmanaged<DeviceStream>.fromOpaque(userdata!).takeUnretainedValue()
                if pa_stream_get_state(stream) == PA_STREAM_FAILED { me.failed.store(true, ordering: .relaxed) }
            }, me)
            let status: Int32
            switch direction {
            case .record:
                attributes.fragsize = bytes
                pa_stream_set_read_callback(stream, { stream, _, userdata in
                    Unmanaged<DeviceStream>.fromOpaque(userdata!).takeUnretainedValue().moveCaptured(stream!)
                }, me)
                status = pa_stream_connect_record(stream, device, &attributes, flags)
            case .playback:
                attributes.tlength = bytes
                attributes.minreq = bytes / 4
                attributes.prebuf = bytes / 2
                pa_stream_set_write_callback(stream, { stream, requested, userdata in
                    Unmanaged<DeviceStream>.fromOpaque(userdata!).takeUnretainedValue().fillPlayback(stream!, requested: requested)
                }, me)
                status = pa_stream_connect_playback(stream, device, &attributes, flags, nil, nil)
            }
            guard status >= 0 else {
                let reason = String(cString: pa_strerror(pa_context_errno(context)))
                disconnect()
                throw .unavailable(reason)
            }
        }
        server.keep(self)
    }

    /// Stops the stream (asynchronously; see `SoundServer.release`).
    func close() { SoundServer.shared.release(self) }

    /// Under the main loop's lock.
    func disconnect() {
        guard let stream else { return }
        pa_stream_set_read_callback(stream, nil, nil)
        pa_stream_set_write_callback(stream, nil, nil)
        pa_stream_set_state_callback(stream, nil, nil)
        pa_stream_disconnect(stream)
        pa_stream_unref(stream)
        self.stream = nil
    }

    /// Server thread: everything the server has captured goes onto the ring.
    private func moveCaptured(_ stream: OpaquePointer) {
        while pa_stream_readable_size(stream) > 0 {
            var data: UnsafeRawPointer?
            var length = 0
            guard pa_stream_peek(stream, &data, &length) == 0, length > 0 else { break }
            let samples = length / 2
            let stored: Int
            if let data {
                stored = ring.write(UnsafeBufferPointer(start: data.assumingMemoryBound(to: Int16.self), count: samples))
            } else {
                stored = ring.writeSilence(count: samples)
            }
            if stored < samples { lostSamples.add(samples - stored, ordering: .relaxed) }
            pa_stream_drop(stream)
        }
        noteLatency(stream)
    }

    /// Server thread: the server asks for `requested` bytes; the ring gives what it has and the
    /// rest is silence, so the server never runs dry and the delay never grows here.
    private func fillPlayback(_ stream: OpaquePointer, requested: Int) {
        var buffer: UnsafeMutableRawPointer?
        var length = requested
        guard pa_stream_begin_write(stream, &buffer, &length) == 0, let buffer, length >= 2 else { return }
        let samples = UnsafeMutableBufferPointer(start: buffer.assumingMemoryBound(to: Int16.self), count: length / 2)
        let read = ring.read(into: samples)
        if read < samples.count {
            (samples.baseAddress! + read).update(repeating: 0, count: samples.count - read)
            starvedSamples.add(samples.count - read, ordering: .relaxed)
        }
        pa_stream_write(stream, buffer, samples.count * 2, nil, 0, PA_SEEK_RELATIVE)
        noteLatency(stream)
    }

    /// Server thread only.
    private var lastFlushMicroseconds = 0

    private func noteLatency(_ stream: OpaquePointer) {
        var latency: pa_usec_t = 0
        var negative: Int32 = 0
        // Between the server's timing updates libpulse may have no latency to give (its indexes
        // were invalidated): the last one stands in, so the newest sample's time still moves.
        let server: Int
        if pa_stream_get_latency(stream, &latency, &negative) == 0 {
            server = negative != 0 ? 0 : Int(latency)
            serverLatencyMicroseconds.store(server, ordering: .relaxed)
        } else {
            server = serverLatencyMicroseconds.load(ordering: .relaxed)
        }
        let now = DeviceTiming.nowMicroseconds()
        if direction == .record, server > DeviceBuffering.captureFlushMilliseconds * 1000, now - lastFlushMicroseconds > 1_000_000 {
            // A backlog in the server (a null sink's monitor at the start, a stall of this
            // thread) would reach the far end that late; the ring cuts its own excess the same way.
            lastFlushMicroseconds = now
            if let operation = pa_stream_flush(stream, nil, nil) { pa_operation_unref(operation) }
        }
        newestSampleMicroseconds.store(direction == .record ? now - server : now + server, ordering: .relaxed)
    }
}
