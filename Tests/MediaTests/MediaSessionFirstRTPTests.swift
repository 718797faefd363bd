import Media
import TestSupport
import Testing

/// In the serialized suite: its waits block a thread, and the event logs need one of the few the
/// test run has.
extension MediaSessionTests {
    /// The first RTP packet of each payload type, each way, is reported exactly once: the calls'
    /// debug logs rest on it (docs/cli.md, "Logs").
    @Test func eachPayloadTypeIsReportedOnceEachWay() throws {
        let pair = try SessionPair(
            codec: .pcmu(), telephoneEvent: 101, sourceA: ToneSource(frequency: 600, sampleRate: 8000),
            sourceB: ToneSource(frequency: 900, sampleRate: 8000))
        defer { pair.finish() }
        #expect(pair.waitForAudio(seconds: 10, samples: 8000))
        try pair.a.sendDTMF("12")
        #expect(waitUntil(seconds: 10) { pair.eventsB.digits == "12" })
        // Two digits and a second of audio: many packets of each type, one event for each.
        let sentByA = pair.eventsA.events.filter { if case .firstRTPSent = $0 { true } else { false } }
        let receivedByB = pair.eventsB.events.filter { if case .firstRTPReceived = $0 { true } else { false } }
        #expect(sentByA == [.firstRTPSent(payloadType: 0), .firstRTPSent(payloadType: 101)])
        #expect(receivedByB == [.firstRTPReceived(payloadType: 0), .firstRTPReceived(payloadType: 101)])
        #expect(pair.eventsA.events.filter { $0 == .firstRTPReceived(payloadType: 0) }.count == 1)
        #expect(!pair.eventsB.events.contains(.firstRTPSent(payloadType: 101)))
    }
}

extension MediaSessionTests {
    /// The session's first packet is reported once, with its arrival, no later than statistics
    /// show it; the first audible frame only by a session that watches for it (docs/performance.md,
    /// "Call setup": setup timing awaits these instead of polling statistics).
    @Test func firstPacketAndFirstAudibleFrameAreReportedOnceWhenTheyHappen() throws {
        let pair = try SessionPair(
            codec: .pcmu(), sourceA: ToneSource(frequency: 600, sampleRate: 8000), sourceB: ToneSource(frequency: 900, sampleRate: 8000),
            adjustB: { $0.watchesFirstAudible = true })
        defer { pair.finish() }
        var shown: ContinuousClock.Instant?
        #expect(waitUntil(seconds: 10) {
            guard pair.b.statistics().packetsReceived > 0 else { return false }
            shown = ContinuousClock.now
            return true
        })
        let seen = try #require(shown)
        #expect(pair.waitForAudio(seconds: 10, samples: 8000))
        #expect(waitUntil(seconds: 10) { pair.eventsB.events.contains { if case .firstAudiblePlayed = $0 { true } else { false } } })
        let arrivals = pair.eventsB.events.compactMap { if case .firstPacketArrived(let at) = $0 { at } else { nil } }
        #expect(arrivals.count == 1)
        let arrival = try #require(arrivals.first)
        #expect(arrival <= seen)
        let audible = pair.eventsB.events.compactMap { if case .firstAudiblePlayed(let at, let packets) = $0 { (at, packets) } else { nil } }
        #expect(audible.count == 1)
        let (playedAt, packets) = try #require(audible.first)
        #expect(playedAt >= arrival)
        #expect(packets >= 1)
        #expect(pair.eventsA.events.filter { if case .firstPacketArrived = $0 { true } else { false } }.count == 1)
        #expect(!pair.eventsA.events.contains { if case .firstAudiblePlayed = $0 { true } else { false } })
    }
}
