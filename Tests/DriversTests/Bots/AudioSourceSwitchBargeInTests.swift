import Foundation
import Media
@testable import Drivers
@testable import Parley
import Testing

/// Barge-in on a call's source: a stop that comes just before its prompt starts still stops it,
/// and a stop left over from an earlier prompt never stops the next one.
@Suite struct AudioSourceSwitchBargeInTests {
    private func prompt() throws -> any AudioSource {
        try BotPrompt.tone(frequency: 440, seconds: 0.1).makeSource(sampleRate: 8000)
    }

    /// Plays a prompt, reading frames as a media clock would (bounded), and returns what `play` said.
    private func playAndRead(_ sources: AudioSourceSwitch) async throws -> Bool {
        let clock = Task {
            var frame = [Int16](repeating: 0, count: 160)
            for _ in 0..<200 where !Task.isCancelled {
                _ = frame.withUnsafeMutableBufferPointer { sources.read(into: $0) }
                try? await Task.sleep(for: .milliseconds(1))
            }
        }
        defer { clock.cancel() }
        return await sources.play(try prompt())
    }

    @Test func anArmedStopThatComesFirstStopsThePromptAtOnce() async throws {
        let sources = AudioSourceSwitch(base: SilenceSource())
        sources.armStop()
        sources.stopPrompt()
        #expect(await sources.play(try prompt()) == false)
        sources.disarmStop()
    }

    @Test func aStopLeftOverFromAnEarlierPromptIsForgotten() async throws {
        let sources = AudioSourceSwitch(base: SilenceSource())
        sources.stopPrompt()
        #expect(try await playAndRead(sources), "unarmed, a stop with no prompt does nothing")
        sources.armStop()
        sources.stopPrompt()
        sources.disarmStop()
        #expect(try await playAndRead(sources), "disarming forgets the stop")
    }
}
