import Dispatch
import Foundation
import Locking
import Media
import Parley

/// Offline speech recognition for the whole process (docs/speech.md): a bounded set of workers,
/// each a serial queue with its own pocketsphinx decoder, made the first time a job needs one.
/// Jobs wait for a free worker, so however many calls ask, at most `workerCount` decoders exist
/// and recognition never runs on a media clock or on Swift's cooperative threads.
public final class SpeechRecognizer: Sendable {
    public static let shared = SpeechRecognizer()

    /// What recognition has cost this process: seconds of audio recognised and CPU seconds spent.
    public struct Usage: Sendable, Equatable {
        public var audioSeconds = 0.0
        public var cpuSeconds = 0.0
        public var segments = 0
    }

    // Unchecked: the decoder is used only on the worker's own queue, by one job at a time.
    private struct Worker: @unchecked Sendable {
        let queue: DispatchQueue
        var decoder: SpeechDecoder?
    }

    private struct State {
        var idle: [Worker] = []
        var made = 0
        var waiters: [CheckedContinuation<Worker, Never>] = []
        var usage = Usage()
    }

    public let workerCount: Int
    private let state = Lock(State())

    /// One worker per core, at most 4: recognition is CPU-bound, and a decoder holds its own copy
    /// of the model (about 100 MB of resident memory, docs/speech.md).
    public init(workerCount: Int = min(4, max(1, ProcessInfo.processInfo.activeProcessorCount))) {
        self.workerCount = max(1, workerCount)
    }

    public var usage: Usage { state.withLock { $0.usage } }

    /// The words in `samples` (mono at `sampleRate`), with times from their start: the free
    /// transcript, by the general language model.
    public func recognise(_ samples: [Int16], sampleRate: Int) async throws(RecognitionError) -> [RecognisedWord] {
        try await lend(samples, sampleRate: sampleRate) { decoder, wideband throws(RecognitionError) in try decoder.decode(wideband) }
    }

    /// The score per phone of each of `phrases` found in `samples` (PhraseSpotter).
    public func spot(_ phrases: [String], in samples: [Int16], sampleRate: Int) async throws(RecognitionError) -> [String: Double] {
        try await lend(samples, sampleRate: sampleRate) { decoder, wideband throws(RecognitionError) in
            try decoder.spot(wideband, phrases: phrases)
        }
    }

    /// Runs `work` on a free worker's decoder with `samples` at the decoder's rate, and counts its cost.
    private func lend<Result: Sendable>(_ samples: [Int16], sampleRate: Int,
                                        _ work: @escaping @Sendable (SpeechDecoder, [Int16]) throws(RecognitionError) -> Result)
        async throws(RecognitionError) -> Result {
        let wideband: [Int16]
        do {
            wideband = try AudioResampler.resample(samples, from: sampleRate, to: SpeechDecoder.sampleRate)
        } catch {
            throw .decoder("cannot resample to 16 kHz: \(error)")
        }
        let lent = await acquire()
        let (returned, result) = await withCheckedContinuation { (continuation: CheckedContinuation<(Worker, Swift.Result<(Result, Double), RecognitionError>), Never>) in
            lent.queue.async {
                var worker = lent
                let started = Self.threadCPUSeconds()
                do throws(RecognitionError) {
                    let decoder: SpeechDecoder
                    if let made = worker.decoder { decoder = made } else { decoder = try SpeechDecoder() }
                    worker.decoder = decoder
                    let value = try SignallingPriority.runAsBulkWork { () throws(RecognitionError) in try work(decoder, wideband) }
                    continuation.resume(returning: (worker, .success((value, Self.threadCPUSeconds() - started))))
                } catch {
                    continuation.resume(returning: (worker, .failure(error)))
                }
            }
        }
        release(returned)
        let (value, cpu) = try result.get()
        state.withLock { state in
            state.usage.audioSeconds += Double(samples.count) / Double(sampleRate)
            state.usage.cpuSeconds += cpu
            state.usage.segments += 1
        }
        return value
    }

    private func acquire() async -> Worker {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Worker? in
                if let worker = state.idle.popLast() { return worker }
                if state.made < workerCount {
                    state.made += 1
                    return Worker(queue: DispatchQueue(label: "parley.speech.\(state.made)", qos: .utility), decoder: nil)
                }
                state.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    private func release(_ worker: Worker) {
        let waiter = state.withLock { state -> CheckedContinuation<Worker, Never>? in
            guard !state.waiters.isEmpty else {
                state.idle.append(worker)
                return nil
            }
            return state.waiters.removeFirst()
        }
        waiter?.resume(returning: worker)
    }

    private static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
