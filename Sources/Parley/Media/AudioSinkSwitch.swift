import Foundation
import Media
import Locking

/// Where a call's received audio goes: the user's `--record` sink, plus a recording a bot
/// starts and stops while the call runs. Written once per tick on the media clock thread.
/// Unchecked: fields behind one Lock<()> taken once per tick around several of them.
package final class AudioSinkSwitch: AudioSink, @unchecked Sendable {
    private let lock = Lock((), rank: .audioSinkSwitch)
    private let base: any AudioSink
    private var recording: (any AudioSink)?
    private var listener: (any ReceivedAudioListener)?
    private var closed = false
    /// Set while the call is merged with another (Call+Merge.swift).
    private var merge: SinkMerge?

    init(base: any AudioSink) {
        self.base = base
    }

    package func write(remote: UnsafeBufferPointer<Int16>, local: UnsafeBufferPointer<Int16>) {
        lock.withLock { _ in writeLocked(remote: remote, local: local) }
    }

    private func writeLocked(remote: UnsafeBufferPointer<Int16>, local: UnsafeBufferPointer<Int16>) {
        guard !closed else { return }
        // The listener hears the far end alone: the other far end of a merged call is not the caller.
        listener?.listen(to: remote)
        guard let merge else {
            base.write(remote: remote, local: local)
            recording?.write(remote: remote, local: local)
            return
        }
        let heard = merge.mixed(remote)
        base.write(remote: heard, local: local)
        recording?.write(remote: heard, local: local)
    }

    /// Feeds what the far end sends to `detector` (speech, silence or a tone) until the next
    /// call (nil stops).
    package func listen(_ detector: (any ReceivedAudioListener)?) {
        lock.withLock { _ in listener = closed ? nil : detector }
    }

    /// Merged: the far end's audio also goes to `outputs` (the other call's source and sink),
    /// and what arrives on `input` (the other far end) is mixed into what we record and play.
    func merge(outputs: [FrameRing], input: FrameRing, frameSamples: Int) {
        let merge = SinkMerge(outputs: outputs, input: input, frameSamples: frameSamples)
        lock.withLock { _ in self.merge = merge }
    }

    func unmerge() {
        lock.withLock { _ in merge = nil }
    }

    /// Starts a second recording beside the base sink, closing any earlier one.
    package func startRecording(_ sink: any AudioSink) {
        let previous = lock.withLock { _ -> (any AudioSink)? in
            defer { recording = closed ? nil : sink }
            return recording
        }
        previous?.close()
        if lock.withLock({ _ in closed }) { sink.close() }
    }

    package func stopRecording() {
        let previous = lock.withLock { _ -> (any AudioSink)? in
            defer { recording = nil }
            return recording
        }
        previous?.close()
    }

    package func close() {
        let (wasOpen, previous) = lock.withLock { _ -> (Bool, (any AudioSink)?) in
            guard !closed else { return (false, nil) }
            closed = true
            listener = nil
            defer { recording = nil }
            return (true, recording)
        }
        previous?.close()
        if wasOpen { base.close() }
    }
}
