@testable import Media
import Testing

/// The playout decisions a media session makes for each step of its jitter buffer, decided in one
/// place for the session that decodes and the one that only counts.
@Suite struct ConcealmentPolicyTests {
    @Test func nothingIsStretchedBeforeTheFirstFrame() {
        var policy = ConcealmentPolicy()
        let decisions = [policy.decide(.buffering), policy.decide(.buffering), policy.decide(.frame(length: 160)), policy.decide(.buffering)]
        #expect(decisions == [.silence, .silence, .decode(length: 160), .stretch])
    }

    @Test func anUnderrunIsStretchedForTenFramesThenSilentUntilAFrameComes() {
        var policy = ConcealmentPolicy()
        _ = policy.decide(.frame(length: 80))
        let underrun = (0..<12).map { _ in policy.decide(.buffering) }
        #expect(underrun == Array(repeating: .stretch, count: 10) + [.silence, .silence])
        let afterwards = [policy.decide(.frame(length: 80)), policy.decide(.buffering)]
        #expect(afterwards == [.decode(length: 80), .stretch])
    }

    /// A lost frame is always rebuilt or concealed, whatever the underrun count: loss in the
    /// middle of a stream is not an underrun, and does not reset one either.
    @Test func aLostFrameIsRecoveredAndLeavesTheUnderrunCountAlone() {
        var policy = ConcealmentPolicy()
        let beforeAnyFrame = [policy.decide(.lost(nextLength: 61)), policy.decide(.buffering)]
        #expect(beforeAnyFrame == [.recover(nextLength: 61), .silence])
        _ = policy.decide(.frame(length: 61))
        for _ in 0..<9 { _ = policy.decide(.buffering) }
        let lateInAnUnderrun = [policy.decide(.lost(nextLength: nil)), policy.decide(.buffering), policy.decide(.buffering)]
        #expect(lateInAnUnderrun == [.recover(nextLength: nil), .stretch, .silence])
    }

    /// Loss patterns as a session meets them: the share of steps made up.
    @Test(arguments: [
        ("every frame arrives", "FFFFFFFFFF", 0),
        ("one in five lost", "FFFFLFFFFL", 2),
        ("a burst of three", "FFLLLFFFFF", 3),
        ("the stream stops", "FFBBBBBBBBBBBBB", 10),
    ])
    func madeUpStepsForALossPattern(name: String, pattern: String, madeUp: Int) {
        var policy = ConcealmentPolicy()
        var count = 0
        for step in pattern {
            let decision = policy.decide(step == "F" ? .frame(length: 100) : step == "L" ? .lost(nextLength: nil) : .buffering)
            if decision == .stretch || decision == .recover(nextLength: nil) { count += 1 }
        }
        #expect(count == madeUp, "\(name)")
    }
}
