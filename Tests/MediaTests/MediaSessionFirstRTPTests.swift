import Media
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
