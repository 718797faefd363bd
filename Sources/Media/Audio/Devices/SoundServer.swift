import CPulse
import Foundation
import Locking

/// The process's one connection to the sound server (PulseAudio, or PipeWire through
/// pipewire-pulse) over libpulse's threaded main loop: one thread for the whole process, however
/// many streams (docs/audio.md). Control calls (listing, opening, closing) take the main loop's
/// lock; the media clock never does: it only touches each stream's `SampleRing`.
/// Unchecked: libpulse's main loop pointers, used only under the threaded main loop's own lock.
package final class SoundServer: @unchecked Sendable {
    package static let shared = SoundServer()

    /// How long connecting and each query may take before the server counts as unreachable.
    static let timeout = Duration.seconds(3)

    private let guardLock = Lock(())
    private var mainloop: OpaquePointer?
    private var context: OpaquePointer?
    private var failure: AudioError?
    /// Streams stay referenced here from opening until the server has let them go.
    private var streams: [ObjectIdentifier: DeviceStream] = [:]

    private init() {}

    /// Connects once; later calls return at once, with the first outcome.
    package func connect() throws(AudioError) {
        let outcome: AudioError? = guardLock.withLock { _ in
            if context != nil { return nil }
            if let failure { return failure }
            do throws(AudioError) {
                try start()
                return nil
            } catch {
                failure = error
                return error
            }
        }
        if let outcome { throw outcome }
    }

    private func start() throws(AudioError) {
        guard let loop = pa_threaded_mainloop_new() else { throw .unavailable("cannot create the libpulse main loop") }
        pa_threaded_mainloop_set_name(loop, "parley-audio")
        guard let api = pa_threaded_mainloop_get_api(loop), let context = pa_context_new(api, "Parley") else {
            pa_threaded_mainloop_free(loop)
            throw .unavailable("cannot create a libpulse context")
        }
        // No autospawn: a call must never start a sound server as a side effect.
        guard pa_context_connect(context, nil, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0, pa_threaded_mainloop_start(loop) >= 0 else {
            let reason = String(cString: pa_strerror(pa_context_errno(context)))
            pa_context_unref(context)
            pa_threaded_mainloop_free(loop)
            throw .unavailable(reason)
        }
        let ready = Self.poll(loop) { () -> Bool? in
            switch pa_context_get_state(context) {
            case PA_CONTEXT_READY: true
            case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED: false
            default: nil
            }
        }
        guard ready == true else {
            pa_threaded_mainloop_lock(loop)
            let reason = ready == nil ? "no answer within \(Self.timeout)" : String(cString: pa_strerror(pa_context_errno(context)))
            pa_context_disconnect(context)
            pa_context_unref(context)
            pa_threaded_mainloop_unlock(loop)
            pa_threaded_mainloop_stop(loop)
            pa_threaded_mainloop_free(loop)
            throw .unavailable(reason)
        }
        self.mainloop = loop
        self.context = context
    }

    /// Asks `check` under the main loop's lock every 5 ms until it answers, for at most `timeout`.
    /// Only for control paths (before or beside a call), never the media clock.
    static func poll<T>(_ loop: OpaquePointer, _ check: () -> T?) -> T? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            pa_threaded_mainloop_lock(loop)
            let answer = check()
            pa_threaded_mainloop_unlock(loop)
            if let answer { return answer }
            usleep(5_000)
        }
        return nil
    }

    /// Runs `body` with the context under the main loop's lock.
    func locked<T>(_ body: (OpaquePointer, OpaquePointer) throws(AudioError) -> T) throws(AudioError) -> T {
        try connect()
        let (loop, context) = guardLock.withLock { _ in (mainloop!, self.context!) }
        pa_threaded_mainloop_lock(loop)
        defer { pa_threaded_mainloop_unlock(loop) }
        return try body(loop, context)
    }

    /// Waits for a query to finish, with the lock released between looks.
    func wait(for operation: OpaquePointer?) throws(AudioError) {
        guard let operation else { throw .unavailable("the sound server refused a query") }
        let loop = guardLock.withLock { _ in mainloop! }
        defer {
            pa_threaded_mainloop_lock(loop)
            pa_operation_unref(operation)
            pa_threaded_mainloop_unlock(loop)
        }
        let done = Self.poll(loop) { pa_operation_get_state(operation) == PA_OPERATION_RUNNING ? nil : true }
        guard done != nil else { throw .unavailable("the sound server did not answer a query within \(Self.timeout)") }
    }

    func keep(_ stream: DeviceStream) { guardLock.withLock { _ in streams[ObjectIdentifier(stream)] = stream } }

    /// Lets a stream go off the caller's thread: the media clock may drop the last reference to a
    /// source or sink, and must not wait for the main loop's lock.
    func release(_ stream: DeviceStream) {
        DispatchQueue.global(qos: .utility).async {
            guard let loop = self.guardLock.withLock({ _ in self.mainloop }) else { return }
            pa_threaded_mainloop_lock(loop)
            stream.disconnect()
            pa_threaded_mainloop_unlock(loop)
            self.guardLock.withLock { _ in _ = self.streams.removeValue(forKey: ObjectIdentifier(stream)) }
        }
    }
}
