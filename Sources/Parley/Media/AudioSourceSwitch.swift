import Foundation
import Media
import Locking

/// The source a call sends from, switchable while the call runs: the user's `--play` source, or
/// a bot's prompt (whose end someone awaits). Read once per
/// tick on the media clock thread; the lock is taken once per tick, never per packet.
/// A prompt that comes pre-encoded (`EncodedAudioSource`) lends its frames to the session.
/// Unchecked: mutable fields behind `lock` (a Lock<()>, to take it once per tick around several), and `lastEncoded` only on the clock thread.
package final class AudioSourceSwitch: EncodedAudioSource, @unchecked Sendable {
    private let lock = Lock((), rank: .audioSourceSwitch)
    private var base: any AudioSource
    private let encodedBase: (any EncodedAudioSource)?
    private var prompt: (source: any AudioSource, encoded: (any EncodedAudioSource)?, finished: CheckedContinuation<Bool, Never>)?
    private var closed = false
    /// Barge-in: a stop that comes before its prompt has started stops that prompt at once.
    private var stopArmed = false
    private var stopPending = false
    /// The pre-encoded prompt the last read came from; only the media clock thread touches it.
    private var lastEncoded: (any EncodedAudioSource)?
    /// Set while the call is merged: the other far end's audio, mixed into what we send.
    private var mergeInput: FrameRing?

    init(base: any AudioSource) {
        self.base = base
        encodedBase = base as? any EncodedAudioSource
    }

    package func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Bool {
        lock.withLock { _ in readLocked(into: frame) }
    }

    private func readLocked(into frame: UnsafeMutableBufferPointer<Int16>) -> Bool {
        // Runs after the frame is filled, still under the lock: a mixed frame is ours to encode.
        defer {
            if let mergeInput {
                mergeInput.mix(into: frame)
                lastEncoded = nil
            }
        }
        lastEncoded = nil
        if let prompt {
            if prompt.source.read(into: frame) {
                lastEncoded = prompt.encoded
                return true
            }
            self.prompt = nil
            prompt.finished.resume(returning: true)
            // The base goes on in this very frame, pre-encoded when it is (silence is): a frame of
            // our own silence here made every call encode one frame per prompt, with an encoder
            // of its own made for it.
        }
        if base.read(into: frame) {
            lastEncoded = encodedBase
        } else {
            silence(frame)
        }
        return true
    }

    /// Merged: `input` (the other far end's audio) is mixed into every frame we send; nil ends it.
    func merge(input: FrameRing?) {
        lock.withLock { _ in mergeInput = input }
    }

    package func encodedFrame(_ format: EncodedFrameFormat, into payload: UnsafeMutableRawBufferPointer) -> Int? {
        lastEncoded?.encodedFrame(format, into: payload)
    }

    /// Plays `source` in place of the base source; returns true once it has ended, false when
    /// it was cut short (another prompt, or the call ended).
    package func play(_ source: sending any AudioSource) async -> Bool {
        let source = UncheckedSource(source)
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let (accepted, replaced) = lock.withLock { _ -> (Bool, CheckedContinuation<Bool, Never>?) in
                guard !closed, !stopPending else {
                    stopPending = false
                    return (false, nil)
                }
                defer { prompt = (source.value, source.value as? any EncodedAudioSource, continuation) }
                return (true, prompt?.finished)
            }
            replaced?.resume(returning: false)
            if !accepted { continuation.resume(returning: false) }
        }
    }

    package func armStop() { lock.withLock { _ in stopArmed = true } }

    package func disarmStop() {
        lock.withLock { _ in
            stopArmed = false
            stopPending = false
        }
    }

    /// Cuts the prompt in progress short; armed and with none in progress, the next one.
    package func stopPrompt() {
        let stopped = lock.withLock { _ -> CheckedContinuation<Bool, Never>? in
            if prompt == nil, stopArmed { stopPending = true }
            defer { prompt = nil }
            return prompt?.finished
        }
        stopped?.resume(returning: false)
    }

    /// Ends any prompt in progress and refuses new ones: the call is over.
    package func close() {
        let cancelled = lock.withLock { _ -> CheckedContinuation<Bool, Never>? in
            closed = true
            defer { prompt = nil }
            return prompt?.finished
        }
        cancelled?.resume(returning: false)
    }

    private func silence(_ frame: UnsafeMutableBufferPointer<Int16>) {
        frame.update(repeating: 0)
    }
}

/// A source handed to the media clock thread, which alone reads it from then on.
/// Unchecked: hands a non-Sendable source to the media clock thread, which alone uses it from then on.
private struct UncheckedSource: @unchecked Sendable {
    let value: any AudioSource
    init(_ value: any AudioSource) { self.value = value }
}
