import Media
import Testing

@Suite struct JitterBufferTests {
    /// Inserts a one-byte payload equal to the sequence number's low byte.
    @discardableResult
    func insert(_ buffer: JitterBuffer, _ sequence: UInt16) -> JitterBuffer.InsertResult {
        [UInt8(truncatingIfNeeded: sequence)].withUnsafeBytes { buffer.insert(sequence: sequence, payload: $0) }
    }

    enum Outcome: Equatable {
        case frame(UInt8)
        case lost(next: UInt8?)
        case buffering
    }

    func pop(_ buffer: JitterBuffer) -> Outcome {
        switch buffer.pop() {
        case .frame(let payload): .frame(payload[0])
        case .lost(let next): .lost(next: next?[0])
        case .buffering: .buffering
        }
    }

    @Test func reordersAndReportsLossWithTheNextFrameForFEC() {
        let buffer = JitterBuffer(configuration: .init(minimumDelayMilliseconds: 60))
        #expect(buffer.targetFrames == 3)
        for sequence: UInt16 in [10, 12, 11, 14, 15] { insert(buffer, sequence) }
        #expect(pop(buffer) == .frame(10))
        #expect(pop(buffer) == .frame(11))
        #expect(pop(buffer) == .frame(12))
        #expect(pop(buffer) == .lost(next: 14))
        #expect(pop(buffer) == .frame(14))
        #expect(pop(buffer) == .frame(15))
        #expect(pop(buffer) == .buffering)
        #expect(buffer.counters.lostFrames == 1)
        #expect(buffer.counters.underruns == 1)
    }

    @Test func aDelayBeyondTheMaximumIsCutBackToTheTargetAtOnce() {
        // 20 ms frames, maximum 200 ms = 10 frames: a sender faster than our clock piles up 15.
        let buffer = JitterBuffer(configuration: .init(minimumDelayMilliseconds: 40, maximumDelayMilliseconds: 200))
        for sequence: UInt16 in 100..<115 { insert(buffer, sequence) }
        #expect(pop(buffer) == .frame(113))
        #expect(pop(buffer) == .frame(114))
        #expect(pop(buffer) == .buffering)
        #expect(buffer.counters.droppedForDelay == 13)
    }

    @Test func waitsForTheTargetDepthBeforePlaying() {
        let buffer = JitterBuffer(configuration: .init(minimumDelayMilliseconds: 60))
        insert(buffer, 100)
        #expect(pop(buffer) == .buffering)
        insert(buffer, 101)
        #expect(pop(buffer) == .buffering)
        insert(buffer, 102)
        #expect(pop(buffer) == .frame(100))
        #expect(buffer.currentDelayMilliseconds == 40)
    }

    @Test func dropsDuplicatesAndLatePackets() {
        let buffer = JitterBuffer()
        #expect(insert(buffer, 1) == .stored)
        #expect(insert(buffer, 1) == .duplicate)
        #expect(pop(buffer) == .frame(1))
        #expect(insert(buffer, 1) == .late)
        #expect(insert(buffer, 0) == .late)
        #expect(buffer.counters.duplicates == 1)
        #expect(buffer.counters.late == 2)
    }

    @Test func earlierPacketBeforePlayoutMovesTheStartBack() {
        let buffer = JitterBuffer(configuration: .init(minimumDelayMilliseconds: 40))
        insert(buffer, 6)
        insert(buffer, 5)
        #expect(pop(buffer) == .frame(5))
        #expect(pop(buffer) == .frame(6))
    }

    @Test func handlesSequenceWrap() {
        let buffer = JitterBuffer()
        var played: [UInt8] = []
        var sequence: UInt16 = 65533
        for _ in 0..<6 {
            insert(buffer, sequence)
            if case .frame(let value) = pop(buffer) { played.append(value) }
            sequence &+= 1
        }
        #expect(played == [253, 254, 255, 0, 1, 2])
        #expect(buffer.counters.lostFrames == 0)
    }

    @Test func placeholdersAreSkippedNotConcealed() {
        let buffer = JitterBuffer(configuration: .init(minimumDelayMilliseconds: 60))
        insert(buffer, 1)
        buffer.insertPlaceholder(sequence: 2)
        insert(buffer, 3)
        #expect(pop(buffer) == .frame(1))
        #expect(pop(buffer) == .frame(3))
        #expect(buffer.counters.lostFrames == 0)
    }

    @Test func farJumpResets() {
        let buffer = JitterBuffer()
        insert(buffer, 1)
        #expect(insert(buffer, 30000) == .reset)
        #expect(pop(buffer) == .frame(UInt8(truncatingIfNeeded: 30000)))
        #expect(buffer.counters.resets == 1)
    }

    @Test func targetFollowsJitterWithinBounds() {
        let buffer = JitterBuffer()
        buffer.updateTarget(jitterMilliseconds: 0)
        #expect(buffer.targetDelayMilliseconds == 20)
        buffer.updateTarget(jitterMilliseconds: 20)
        #expect(buffer.targetDelayMilliseconds == 80)
        buffer.updateTarget(jitterMilliseconds: 500)
        #expect(buffer.targetDelayMilliseconds == 200)
    }

    @Test func excessDelayShrinksTowardsTheTarget() {
        let buffer = JitterBuffer(configuration: .init(minimumDelayMilliseconds: 20))
        // A burst of 8 frames, then steady one-in one-out: the delay starts at 160 ms.
        var sequence: UInt16 = 0
        for _ in 0..<8 {
            insert(buffer, sequence)
            sequence += 1
        }
        for _ in 0..<300 {
            _ = buffer.pop()
            insert(buffer, sequence)
            sequence += 1
        }
        #expect(buffer.counters.droppedForDelay >= 4)
        #expect(buffer.currentDelayMilliseconds <= 80)
        #expect(buffer.counters.underruns == 0)
    }

    @Test func oversizedPayloadIsRefused() {
        let buffer = JitterBuffer(configuration: .init(maximumPayload: 4))
        let result = [UInt8](repeating: 0, count: 5).withUnsafeBytes { buffer.insert(sequence: 1, payload: $0) }
        #expect(result == .tooLarge)
    }

    /// Inserts a payload of `count` bytes, each the sequence number's low byte.
    @discardableResult
    func insert(_ buffer: JitterBuffer, _ sequence: UInt16, bytes count: Int) -> JitterBuffer.InsertResult {
        [UInt8](repeating: UInt8(truncatingIfNeeded: sequence), count: count).withUnsafeBytes { buffer.insert(sequence: sequence, payload: $0) }
    }

    /// The whole frame when every byte is `expected`.
    func popWhole(_ buffer: JitterBuffer, _ expected: UInt8, bytes count: Int) throws -> Bool {
        guard case .frame(let payload) = buffer.pop() else { return false }
        try #require(payload.count == count)
        return payload.allSatisfy { $0 == expected }
    }

    @Test func payloadStorageIsBoundedNotSlotsTimesTheLargestPacket() {
        // 64 slots of 1,500 bytes would be 96,000 bytes resident per call (docs/media.md).
        let buffer = JitterBuffer()
        #expect(buffer.configuration.capacity == 64)
        #expect(buffer.payloadStorageBytes <= 16 * 1500)
    }

    @Test func largePayloadsStillPlayWholeAcrossTheRingsEnd() throws {
        // 300 packets of 1,000 to 1,500 bytes through a ring of 16 of the largest: each comes out
        // whole and in order, also when the ring's tail was too short for it.
        let size = { (sequence: UInt16) in 1000 + Int(sequence) * 37 % 501 }
        let buffer = JitterBuffer(configuration: .init(minimumDelayMilliseconds: 60))
        for sequence: UInt16 in 0..<3 { insert(buffer, sequence, bytes: size(sequence)) }
        for sequence: UInt16 in 3..<303 {
            let played = sequence - 3
            #expect(try popWhole(buffer, UInt8(truncatingIfNeeded: played), bytes: size(played)))
            insert(buffer, sequence, bytes: size(sequence))
        }
        #expect(buffer.counters.lostFrames == 0)
    }

    @Test func aPayloadOverwrittenBeforeItsTurnPlaysAsLostNotGarbage() {
        // A ring of 3 payloads: the 4th and 5th packets overwrite the first two before playout.
        let buffer = JitterBuffer(configuration: .init(minimumDelayMilliseconds: 100, maximumPayload: 100, payloadBytes: 300))
        for sequence: UInt16 in 10..<15 { insert(buffer, sequence, bytes: 100) }
        #expect(pop(buffer) == .lost(next: nil))
        #expect(pop(buffer) == .lost(next: 12))
        #expect(pop(buffer) == .frame(12))
        #expect(pop(buffer) == .frame(13))
        #expect(pop(buffer) == .frame(14))
        #expect(buffer.counters.lostFrames == 2)
    }
}
