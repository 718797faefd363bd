import Foundation
import Media

/// The audio half of a bot call, for a `Call` to build `BotCallControl` on: give the port to
/// the media session as its source and sink, and forward `play`, `startRecording` and
/// `stopRecording` to it. Between prompts it sends silence; it never ends by itself.
///
/// `read` and `write` run on the media clock thread: they take one uncontended lock and do
/// not allocate. Prompts are built (WAV files read) in `play`, off that thread.
public final class BotAudioPort: AudioSource, AudioSink, @unchecked Sendable {
    public let sampleRate: Int
    private let lock = NSLock()
    private var prompt: (source: any AudioSource, finished: CheckedContinuation<Bool, Never>)?
    private var recorder: WAVRecorder?
    private var ended = false
    /// Also gets every tick's audio, e.g. a recording of the whole call.
    private let callSink: (any AudioSink)?

    public init(sampleRate: Int, callSink: (any AudioSink)? = nil) {
        self.sampleRate = sampleRate
        self.callSink = callSink
    }

    /// Plays `prompt` and returns true once its last sample has been read, or false when the
    /// call ends first, the task is cancelled, or a newer `play` replaces it. A prompt whose
    /// WAV file can no longer be read is skipped (true at once).
    public func play(_ prompt: BotPrompt) async -> Bool {
        guard let source = try? prompt.makeSource(sampleRate: sampleRate) else { return true }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                lock.lock()
                // Checked under the lock that onCancel also takes, so no cancellation is missed.
                if ended || Task.isCancelled {
                    lock.unlock()
                    continuation.resume(returning: false)
                    return
                }
                let replaced = self.prompt?.finished
                self.prompt = (source, continuation)
                lock.unlock()
                replaced?.resume(returning: false)
            }
        } onCancel: {
            finishPrompt(playedToTheEnd: false)
        }
    }

    public var isPlaying: Bool {
        lock.lock()
        defer { lock.unlock() }
        return prompt != nil
    }

    /// Starts writing what the caller says to a mono WAV file at `path`; a recording already
    /// running is closed first.
    public func startRecording(path: String) throws(AudioError) {
        let started = try WAVRecorder(path: path, sampleRate: sampleRate)
        lock.lock()
        let previous = recorder
        recorder = ended ? nil : started
        let refused = ended
        lock.unlock()
        previous?.close()
        if refused { started.close() }
    }

    public func stopRecording() {
        lock.lock()
        let stopped = recorder
        recorder = nil
        lock.unlock()
        stopped?.close()
    }

    /// The call is over: a playing prompt returns false, a recording is closed, and later
    /// prompts and recordings are refused.
    public func callEnded() {
        lock.lock()
        ended = true
        let stopped = recorder
        recorder = nil
        lock.unlock()
        finishPrompt(playedToTheEnd: false)
        stopped?.close()
    }

    private func finishPrompt(playedToTheEnd: Bool) {
        lock.lock()
        let finished = prompt?.finished
        prompt = nil
        lock.unlock()
        finished?.resume(returning: playedToTheEnd)
    }

    // MARK: Media clock thread

    public func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Bool {
        lock.lock()
        guard let current = prompt else {
            lock.unlock()
            frame.update(repeating: 0)
            return true
        }
        let playing = current.source.read(into: frame)
        if !playing { prompt = nil }
        lock.unlock()
        if !playing { current.finished.resume(returning: true) }
        return true
    }

    public func write(remote: UnsafeBufferPointer<Int16>, local: UnsafeBufferPointer<Int16>) {
        lock.lock()
        recorder?.write(remote: remote, local: local)
        lock.unlock()
        callSink?.write(remote: remote, local: local)
    }

    /// The media session closes its sink when it stops: the call is over.
    public func close() {
        callEnded()
        callSink?.close()
    }
}
