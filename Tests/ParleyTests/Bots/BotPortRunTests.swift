import Foundation
import Logging
import Media
import Parley
import Testing

/// A bot call whose prompts really play: a `BotAudioPort` read by a clock thread that runs 20x
/// faster than real time (a 20 ms frame every millisecond) and keeps what the caller heard.
final class PortBackedCall: BotCallControl, @unchecked Sendable {
    let callID = "port-call"
    let digits: AsyncStream<Character>
    private let continuation: AsyncStream<Character>.Continuation
    let port = BotAudioPort(sampleRate: 8000)
    let heard = Guarded([Int16]())
    private let running = Guarded(true)
    private let plays = Guarded(0)
    /// Keys pressed while the prompt with that 0-based number plays.
    private let keys: [Int: String]

    init(keys: [Int: String]) {
        self.keys = keys
        (digits, continuation) = AsyncStream.makeStream(of: Character.self)
        let thread = Thread { [port, heard, running] in
            var frame = [Int16](repeating: 0, count: 160)
            // At most 100 s of wall time, whatever the test does.
            for _ in 0..<100_000 where running.withLock({ $0 }) {
                frame.withUnsafeMutableBufferPointer { _ = port.read(into: $0) }
                heard.withLock { $0 += frame }
                usleep(1000)
            }
        }
        thread.start()
    }

    func stopClock() { running.withLock { $0 = false } }

    func play(_ prompt: BotPrompt) async -> Bool {
        let index = plays.withLock { count in
            defer { count += 1 }
            return count
        }
        if let pressed = keys[index] { for key in pressed { continuation.yield(key) } }
        return await port.play(prompt)
    }

    func startRecording(path: String) throws { try port.startRecording(path: path) }
    func stopRecording() { port.stopRecording() }

    func hangup() async {
        port.callEnded()
        continuation.finish()
    }
}

@Suite struct BotPortRunTests {
    /// The strongest of `candidates` in a frame (Goertzel), or nil for silence.
    static func dominantFrequency(_ frame: ArraySlice<Int16>, candidates: [Double], sampleRate: Double = 8000) -> Double? {
        guard frame.contains(where: { abs(Int($0)) > 1000 }) else { return nil }
        var best: (frequency: Double, power: Double)?
        for frequency in candidates {
            let coefficient = 2 * cos(2 * Double.pi * frequency / sampleRate)
            var (previous, beforePrevious) = (0.0, 0.0)
            for sample in frame {
                let current = Double(sample) + coefficient * previous - beforePrevious
                beforePrevious = previous
                previous = current
            }
            let power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
            if power > best?.power ?? -1 { best = (frequency, power) }
        }
        return best?.frequency
    }

    @Test func theExampleIVRPlaysTheBranchTheCallerChose() async throws {
        // While the welcome prompt plays the caller presses 1 (sales, then back to the menu),
        // and 9 during the second welcome: the bot hangs up.
        let call = PortBackedCall(keys: [0: "1", 2: "9"])
        defer { call.stopClock() }
        let script = try BotScript.load(path: BotFiles.examples.appendingPathComponent("ivr.yaml").path)
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let outcome = await BotRunner(script: script).run(on: call, logger: logger)
        call.stopClock()
        #expect(outcome.steps == ["welcome", "sales", "welcome"])
        #expect(outcome.ending == .botHungUp)

        let heard = call.heard.withLock { $0 }
        var tones: [Double] = []
        var frames: [Double: Int] = [:]
        for start in stride(from: 0, to: heard.count - 159, by: 160) {
            guard let tone = Self.dominantFrequency(heard[start..<(start + 160)], candidates: [330, 440, 500, 550, 660, 1000]) else { continue }
            frames[tone, default: 0] += 1
            if tones.last != tone { tones.append(tone) }
        }
        #expect(tones == [440, 660, 440])
        // 1.5 s of 440 Hz twice and 1 s of 660 Hz, in 20 ms frames.
        #expect(frames[440] == 150)
        #expect(frames[660] == 50)
    }
}
