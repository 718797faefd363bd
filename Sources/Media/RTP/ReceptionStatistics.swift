/// What a receiver knows about one RTP source (RFC 3550 §6.4.1 and appendix A.1, A.3, A.8).
package struct ReceptionStatistics: Sendable {
    /// How the sequence number of one packet was judged (RFC 3550 A.1).
    package enum Verdict: Sendable, Equatable {
        /// In order, or a reorder within the window: count it.
        case accepted
        /// Still in probation: the source is not yet considered valid.
        case probation
        /// A large jump that is not (yet) confirmed by a following packet.
        case badSequence
    }

    static let maxDropout: UInt16 = 3000
    static let maxMisorder: UInt16 = 100
    static let minSequential = 2
    static let sequenceModulus: UInt32 = 1 << 16

    private(set) var maxSequence: UInt16 = 0
    /// Sequence wrap count, shifted (RFC 3550 A.1).
    private var cycles: UInt32 = 0
    private var baseSequence: UInt32 = 0
    private var badSequence: UInt32 = sequenceModulus + 1
    private var probation = minSequential
    package private(set) var received: UInt64 = 0
    private var expectedPrior: UInt64 = 0
    private var receivedPrior: UInt64 = 0
    private var started = false

    private var lastTransit: Int64 = 0
    private var hasTransit = false
    /// Interarrival jitter in timestamp units, scaled by 16 as in A.8.
    private var scaledJitter: Int64 = 0

    package init() {}

    package var extendedHighestSequence: UInt32 { cycles &+ UInt32(maxSequence) }

    package var expected: UInt64 {
        guard started, probation == 0 else { return 0 }
        return UInt64(extendedHighestSequence) &- UInt64(baseSequence) &+ 1
    }

    /// Packets expected but not received; negative when duplicates outnumber losses.
    package var cumulativeLost: Int64 { Int64(bitPattern: expected) - Int64(received) }

    /// Interarrival jitter in timestamp units.
    package var jitter: UInt32 { UInt32(truncatingIfNeeded: scaledJitter >> 4) }

    /// Records one packet. `arrival` is the arrival time in the same units as `rtpTimestamp`.
    @discardableResult
    package mutating func record(sequence: UInt16, rtpTimestamp: UInt32, arrival: UInt32) -> Verdict {
        let verdict = updateSequence(sequence)
        guard verdict == .accepted else { return verdict }
        // A.8: transit = arrival - timestamp, jitter += (|D| - jitter) / 16, kept scaled by 16.
        let transit = Int64(Int32(bitPattern: arrival &- rtpTimestamp))
        if hasTransit {
            let difference = abs(transit - lastTransit)
            scaledJitter += difference - ((scaledJitter + 8) >> 4)
        }
        lastTransit = transit
        hasTransit = true
        return verdict
    }

    private mutating func initialize(_ sequence: UInt16) {
        baseSequence = UInt32(sequence)
        maxSequence = sequence
        badSequence = Self.sequenceModulus + 1
        cycles = 0
        received = 0
        receivedPrior = 0
        expectedPrior = 0
    }

    private mutating func updateSequence(_ sequence: UInt16) -> Verdict {
        if !started {
            initialize(sequence)
            maxSequence = sequence &- 1
            probation = Self.minSequential
            started = true
        }
        let delta = sequence &- maxSequence
        if probation > 0 {
            // A source is valid after minSequential packets in sequence.
            if sequence == maxSequence &+ 1 {
                probation -= 1
                maxSequence = sequence
                if probation == 0 {
                    initialize(sequence)
                    received += 1
                    return .accepted
                }
            } else {
                probation = Self.minSequential - 1
                maxSequence = sequence
            }
            return .probation
        } else if delta < Self.maxDropout {
            if sequence < maxSequence { cycles &+= Self.sequenceModulus }
            maxSequence = sequence
        } else if delta <= UInt16.max - Self.maxMisorder {
            // A very large jump: accept it only when the next packet confirms it (source restarted).
            if UInt32(sequence) == badSequence {
                initialize(sequence)
            } else {
                badSequence = (UInt32(sequence) + 1) & (Self.sequenceModulus - 1)
                return .badSequence
            }
        }
        // else: duplicate or reordered packet, counted as received.
        received += 1
        return .accepted
    }

    /// Makes a report block for this source and starts a new reporting interval (RFC 3550 A.3).
    package mutating func makeReportBlock(ssrc: UInt32, lastSenderReport: UInt32, delaySinceLastSenderReport: UInt32) -> ReportBlock {
        let expectedNow = expected
        let expectedInterval = Int64(bitPattern: expectedNow &- expectedPrior)
        let receivedInterval = Int64(bitPattern: received &- receivedPrior)
        expectedPrior = expectedNow
        receivedPrior = received
        let lostInterval = expectedInterval - receivedInterval
        let fraction: UInt8 = expectedInterval == 0 || lostInterval <= 0 ? 0 : UInt8(min(255, (lostInterval << 8) / expectedInterval))
        let lost = Int32(clamping: max(-0x80_0000, min(0x7F_FFFF, cumulativeLost)))
        return ReportBlock(
            ssrc: ssrc, fractionLost: fraction, cumulativeLost: lost, extendedHighestSequence: extendedHighestSequence,
            jitter: jitter, lastSenderReport: lastSenderReport, delaySinceLastSenderReport: delaySinceLastSenderReport)
    }
}

/// NTP time (RFC 5905: seconds since 1900 in 32.32 fixed point) and the compact 16.16 form RTCP uses.
package enum NTPTime {
    static let unixToNTPSeconds: UInt64 = 2_208_988_800

    /// NTP timestamp for a wall-clock time given as seconds and nanoseconds since 1970.
    package static func timestamp(unixSeconds: UInt64, nanoseconds: UInt64) -> UInt64 {
        let fraction = (nanoseconds << 32) / 1_000_000_000
        return (unixSeconds + unixToNTPSeconds) << 32 | fraction
    }

    package static func compact(_ timestamp: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: timestamp >> 16) }

    /// Round-trip time (RFC 3550 §6.4.1) from a report block received at `arrival` (compact NTP):
    /// A − LSR − DLSR, in seconds. Nil when the block echoes no SR or the result is negative.
    package static func roundTripTime(arrival: UInt32, lastSenderReport: UInt32, delaySinceLastSenderReport: UInt32) -> Double? {
        guard lastSenderReport != 0 else { return nil }
        let rtt = Int64(arrival) - Int64(lastSenderReport) - Int64(delaySinceLastSenderReport)
        // Wrap-around of the 16.16 clock every 18 hours: treat as modular when the result is small.
        let wrapped = rtt < 0 ? Int64(UInt32(truncatingIfNeeded: rtt)) : rtt
        guard wrapped < 0x1_0000 * 60 else { return nil }
        return Double(wrapped) / 65536
    }
}
