import Media
import Testing

@Suite struct ReceptionStatisticsTests {
    @Test func countsLossAcrossSequenceWrap() {
        var stats = ReceptionStatistics()
        var sequence: UInt16 = 65500
        var sent = 0
        for index in 0..<100 {
            defer { sequence &+= 1 }
            sent += 1
            // Drop every tenth packet after probation.
            if index > 2 && index % 10 == 0 { continue }
            stats.record(sequence: sequence, rtpTimestamp: UInt32(index * 160), arrival: UInt32(index * 160))
        }
        // The first packet is spent on probation (RFC 3550 A.1), so counting starts at the second.
        #expect(stats.extendedHighestSequence == 65536 + 63)
        #expect(stats.expected == 99)
        #expect(stats.cumulativeLost == 9)
        let block = stats.makeReportBlock(ssrc: 1, lastSenderReport: 0, delaySinceLastSenderReport: 0)
        #expect(block.cumulativeLost == 9)
        #expect(block.fractionLost == UInt8(9 * 256 / 99))
        // A second interval with no loss reports a zero fraction but the same cumulative loss.
        for index in 100..<150 { stats.record(sequence: UInt16(truncatingIfNeeded: 65500 + index), rtpTimestamp: UInt32(index * 160), arrival: UInt32(index * 160)) }
        let next = stats.makeReportBlock(ssrc: 1, lastSenderReport: 0, delaySinceLastSenderReport: 0)
        #expect(next.fractionLost == 0)
        #expect(next.cumulativeLost == 9)
    }

    @Test func jitterIsZeroForPerfectTimingAndTracksVariation() {
        var steady = ReceptionStatistics()
        for index in 0..<50 { steady.record(sequence: UInt16(index), rtpTimestamp: UInt32(index * 160), arrival: UInt32(1000 + index * 160)) }
        #expect(steady.jitter == 0)

        // Arrival alternates 40 timestamp units early and late: |D| = 80 each time, so jitter
        // converges towards 80.
        var shaky = ReceptionStatistics()
        for index in 0..<400 {
            let offset = index % 2 == 0 ? 40 : -40
            shaky.record(sequence: UInt16(index), rtpTimestamp: UInt32(index * 160), arrival: UInt32(1000 + index * 160 + offset))
        }
        #expect((76...80).contains(shaky.jitter))
    }

    @Test func largeJumpNeedsConfirmation() {
        var stats = ReceptionStatistics()
        for sequence in UInt16(0)..<10 { stats.record(sequence: sequence, rtpTimestamp: 0, arrival: 0) }
        #expect(stats.record(sequence: 40000, rtpTimestamp: 0, arrival: 0) == .badSequence)
        #expect(stats.record(sequence: 40001, rtpTimestamp: 0, arrival: 0) == .accepted)
        #expect(stats.extendedHighestSequence == 40001)
        #expect(stats.cumulativeLost == 0)
    }

    @Test func duplicatesCanMakeLossNegative() {
        var stats = ReceptionStatistics()
        for sequence in UInt16(0)..<5 { stats.record(sequence: sequence, rtpTimestamp: 0, arrival: 0) }
        stats.record(sequence: 4, rtpTimestamp: 0, arrival: 0)
        #expect(stats.cumulativeLost == -1)
    }

    @Test func roundTripTimeFromLSRAndDLSR() throws {
        // SR sent at compact NTP 0x10000 (1 s); peer held it 0.5 s; we got the RR at 1.75 s → RTT 0.25 s.
        let rtt = try #require(NTPTime.roundTripTime(arrival: 0x1_C000, lastSenderReport: 0x1_0000, delaySinceLastSenderReport: 0x8000))
        #expect(rtt == 0.25)
        #expect(NTPTime.roundTripTime(arrival: 0x1_C000, lastSenderReport: 0, delaySinceLastSenderReport: 0) == nil)
        let info = SenderInfo(ntpTimestamp: NTPTime.timestamp(unixSeconds: 0, nanoseconds: 500_000_000), rtpTimestamp: 0, packetCount: 0, octetCount: 0)
        // 1970 is 2208988800 s after 1900; half a second is 0x8000 in 16.16.
        #expect(info.compactNTP == UInt32(truncatingIfNeeded: (UInt64(2_208_988_800) << 16) | 0x8000))
    }
}
