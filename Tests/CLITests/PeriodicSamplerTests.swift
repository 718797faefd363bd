@testable import CLI
import Locking
import TestSupport
import Testing

/// A member that counts its samples and says it is over once told to.
private final class CountingMember: PeriodicallySampled {
    private struct State {
        var samples = 0
        var over = false
    }

    private let state = Lock(State())

    var samples: Int { state.withLock { $0.samples } }

    func end() { state.withLock { $0.over = true } }

    func sampleOnce() async -> Bool {
        state.withLock { state in
            state.samples += 1
            return !state.over
        }
    }
}

@Suite struct PeriodicSamplerTests {
    @Test func aPassSamplesEveryMemberOnceAndDropsTheOnesThatEnded() async throws {
        // A period no test lasts: only the passes called here sample.
        let sampler = PeriodicSampler(period: .seconds(3600))
        let members = (0..<3).map { _ in CountingMember() }
        for member in members { sampler.add(member) }
        sampler.add(members[0])
        #expect(sampler.count == 3)

        await sampler.samplePass()
        #expect(members.map(\.samples) == [1, 1, 1])

        members[1].end()
        await sampler.samplePass()
        #expect(members.map(\.samples) == [2, 2, 2])
        #expect(sampler.count == 2)

        sampler.remove(members[2])
        await sampler.samplePass()
        #expect(members.map(\.samples) == [3, 2, 2])
        #expect(sampler.count == 1)
    }

    @Test func theLoopSamplesEachMemberOncePerPeriodAndStopsWhenNoneAreLeft() async throws {
        let sampler = PeriodicSampler(period: .milliseconds(20))
        let members = (0..<4).map { _ in CountingMember() }
        for member in members { sampler.add(member) }
        try await waitUntil("every member sampled 5 times", within: 10) { members.allSatisfy { $0.samples >= 5 } }
        // One pass visits every member: no member is ever more than one pass ahead of another.
        let counts = members.map(\.samples)
        #expect(try #require(counts.max()) - #require(counts.min()) <= 1)

        for member in members { member.end() }
        try await waitUntil("the ended members removed and the loop stopped", within: 10) { sampler.count == 0 && !sampler.isRunning }
        let final = members.map(\.samples)
        try await Task.sleep(for: .milliseconds(100))
        #expect(members.map(\.samples) == final)

        // The next member starts the loop again.
        let late = CountingMember()
        sampler.add(late)
        try await waitUntil("a member added after the loop stopped is sampled", within: 10) { late.samples >= 2 }
        late.end()
        try await waitUntil("the loop stopped again", within: 10) { !sampler.isRunning }
    }
}
