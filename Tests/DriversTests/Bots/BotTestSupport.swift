import Foundation
import Logging
import Media
import Drivers
import Parley
import Testing
import Locking

enum BotFiles {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let examples = packageRoot.appendingPathComponent("examples/bots")

    /// A fresh directory under /tmp, removed by the caller.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("parley-bots-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A mono 16-bit WAV of `samples` samples of a 1 kHz tone.
    static func writeWAV(at path: String, sampleRate: Int = 8000, samples: Int) throws {
        let recorder = try WAVRecorder(path: path, sampleRate: sampleRate)
        let tone = ToneSource(frequency: 1000, sampleRate: sampleRate)
        var frame = [Int16](repeating: 0, count: samples)
        frame.withUnsafeMutableBufferPointer { _ = tone.read(into: $0) }
        frame.withUnsafeBufferPointer { recorder.write(remote: $0, local: $0) }
        recorder.close()
    }
}

/// Test-only state behind a `Lock`, in a class so that escaping closures can share it.
final class Guarded<Value>: Sendable {
    private let lock: Lock<Value>
    init(_ value: sending Value) { lock = Lock(value) }
    func withLock<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        try lock.withLock(body)
    }
}

struct FakeCallError: Error, CustomStringConvertible {
    var description: String { "disk full" }
}

/// A call the test drives: it decides what happens during each prompt and when recording
/// starts, and it notes what the bot asked for.
final class FakeBotCall: BotCallControl, @unchecked Sendable {
    struct Log {
        var played: [BotPrompt] = []
        var playTimes: [ContinuousClock.Instant] = []
        var recordingPaths: [String] = []
        var recordingStops = 0
        var hangups = 0
    }

    let callID: String
    let digits: AsyncStream<Character>
    private let continuation: AsyncStream<Character>.Continuation
    let log = Guarded(Log())
    /// Called for each prompt with its 0-based number; returns what `play` returns.
    let onPlay: @Sendable (Int, BotPrompt, FakeBotCall) async -> Bool
    let onStartRecording: @Sendable (String, FakeBotCall) throws -> Void
    /// Build each prompt's source before playing it, as a call does, so a prompt that cannot
    /// be built throws.
    let buildsSources: Bool

    init(callID: String = "call-1",
         onPlay: @escaping @Sendable (Int, BotPrompt, FakeBotCall) async -> Bool = { _, _, _ in true },
         onStartRecording: @escaping @Sendable (String, FakeBotCall) throws -> Void = { _, _ in }, buildsSources: Bool = false) {
        self.callID = callID
        self.buildsSources = buildsSources
        (digits, continuation) = AsyncStream.makeStream(of: Character.self)
        self.onPlay = onPlay
        self.onStartRecording = onStartRecording
    }

    func press(_ keys: String) { for key in keys { continuation.yield(key) } }
    func endCall() { continuation.finish() }

    var played: [BotPrompt] { log.withLock { $0.played } }

    func play(_ prompt: BotPrompt) async throws(AudioError) -> Bool {
        if buildsSources { _ = try prompt.makeSource(sampleRate: 8000) }
        let index = log.withLock { log in
            log.played.append(prompt)
            log.playTimes.append(.now)
            return log.played.count - 1
        }
        return await onPlay(index, prompt, self)
    }

    func startRecording(path: String) throws {
        log.withLock { $0.recordingPaths.append(path) }
        try onStartRecording(path, self)
    }

    func stopRecording() { log.withLock { $0.recordingStops += 1 } }

    /// When the bot cut a prompt short (barge-in).
    let promptStops = Guarded<[ContinuousClock.Instant]>([])
    let speechListener = Guarded<(@Sendable () -> Void)?>(nil)

    func armBargeIn(onSpeech: @escaping @Sendable () -> Void) { speechListener.withLock { $0 = onSpeech } }

    func stopPrompt() { promptStops.withLock { $0.append(.now) } }

    func disarmBargeIn() { speechListener.withLock { $0 = nil } }

    /// What the caller's speech onset does: calls the bot's listener, if it listens.
    func speak() { speechListener.withLock { $0 }?() }

    /// A prompt that plays until the bot has stopped `stops` prompts (true if it ran `seconds`
    /// to its end first).
    func playUntilStopped(stops: Int = 1, seconds: Double = 5) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if promptStops.withLock({ $0.count }) >= stops { return false }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return true
    }

    func hangup() async {
        log.withLock { $0.hangups += 1 }
        continuation.finish()
    }

    /// What the bot listens for now, and its report; `hear(_:)` plays the far end's side.
    let soundListener = Guarded<(sound: BotSound, heard: @Sendable () -> Void)?>(nil)
    let sent = Guarded<[String]>([])
    let cause = Guarded("NORMAL_CLEARING")

    func listen(for sound: BotSound, heard: @escaping @Sendable () -> Void) { soundListener.withLock { $0 = (sound, heard) } }

    func stopListening() {
        soundListener.withLock { $0 = nil }
        audioListener.withLock { $0 = nil }
    }

    /// What hears the far end's audio now (a `heard:` step's segmenter); `say(_:)` feeds it.
    let audioListener = Guarded<(any ReceivedAudioListener)?>(nil)

    func listen(with listener: any ReceivedAudioListener) { audioListener.withLock { $0 = listener } }

    /// The far end's audio at 16 kHz, in 20 ms frames, to the listener of the moment; false
    /// when none listened.
    @discardableResult
    func say(_ samples: [Int16]) -> Bool {
        guard let listener = audioListener.withLock({ $0 }) else { return false }
        for start in stride(from: 0, to: samples.count, by: 320) {
            samples[start..<min(samples.count, start + 320)].withUnsafeBufferPointer { listener.listen(to: $0) }
        }
        return true
    }

    var listeningFor: BotSound? { soundListener.withLock { $0?.sound } }

    /// The far end makes `sound`: the bot's listener runs if it listens for that very sound.
    func hear(_ sound: BotSound) {
        let listener = soundListener.withLock { $0 }
        if let listener, listener.sound == sound { listener.heard() }
    }

    func sendDigits(_ digits: String) async throws { sent.withLock { $0.append(digits) } }

    func endCause() async -> String { cause.withLock { $0 } }
}

struct BoundedRunError: Error, CustomStringConvertible {
    var description: String
}

/// Runs the bot, failing if it has not finished within `seconds`.
func runBot(_ yaml: String, on call: FakeBotCall, recordDirectory: String = "/tmp", within seconds: Double = 5) async throws -> BotOutcome {
    let script = try BotScript.parse(text: yaml, format: .yaml, baseDirectory: "/tmp")
    let runner = BotRunner(script: script, recordDirectory: recordDirectory)
    let logger = Logger(label: "parley.bots.test") { _ in SwiftLogNoOpLogHandler() }
    return try await withThrowingTaskGroup(of: BotOutcome?.self) { group in
        group.addTask { await runner.run(on: call, logger: logger) }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let first = try await group.next() ?? nil
        group.cancelAll()
        guard let first else { throw BoundedRunError(description: "the bot did not finish within \(seconds) s") }
        return first
    }
}

/// Reads a source frame by frame until it ends; returns the samples of the frames that played.
func drain(_ source: any AudioSource, frame size: Int, maximumFrames: Int = 100_000) -> (frames: [[Int16]], endedAfter: Int) {
    var frames: [[Int16]] = []
    var frame = [Int16](repeating: 1, count: size)
    for _ in 0..<maximumFrames {
        let playing = frame.withUnsafeMutableBufferPointer { source.read(into: $0) }
        guard playing else {
            #expect(frame.allSatisfy { $0 == 0 }, "an ended source leaves silence in the frame")
            return (frames, frames.count)
        }
        frames.append(frame)
    }
    Issue.record("the source never ended")
    return (frames, frames.count)
}
