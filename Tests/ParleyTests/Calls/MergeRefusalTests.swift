import Logging
@testable import Parley
import Testing

/// Merging checks both calls first and changes nothing when it refuses; the mixing itself is
/// proven with three real processes by scripts/test-merge.
@Suite struct MergeRefusalTests {
    @Test func aCallCannotBeMergedWithItselfOrBeforeItIsActive() async throws {
        let first = CallRaceTests.call(.outgoing, CallRaceTests.RecordingSignalling(holdsOpen: false))
        let second = Call(id: "second", direction: .outgoing, remoteParty: "carol", signalling: CallRaceTests.RecordingSignalling(holdsOpen: false),
                          media: CallRaceTests.media(), logger: Logger(label: "test.merge"))
        try await first.dial(destination: "bob", options: DialOptions())
        let itself = await #expect(throws: ParleyError.self) { try await first.merge(with: first) }
        #expect(itself?.kind == .callState)
        let notActive = await #expect(throws: ParleyError.self) { try await first.merge(with: second) }
        #expect(notActive?.kind == .callState)
        let notMerged = await #expect(throws: ParleyError.self) { try await first.unmerge() }
        #expect(notMerged?.kind == .callState)
        await first.hangup()
        await second.hangup()
    }
}
