@testable import Media
import Testing

/// What a session's clock side counts, dropped sends included.
@Suite struct SessionCountersTests {
    @Test func sentPacketsCountPacketsAndPayloadBytesAndNameEachPayloadTypeOnce() {
        var counters = SessionCounters()
        let firstOfTheirType = [
            counters.sent(payloadBytes: 160, payloadType: 0), counters.sent(payloadBytes: 160, payloadType: 0),
            counters.sent(payloadBytes: 4, payloadType: 101), counters.sent(payloadBytes: 4, payloadType: 101),
        ]
        #expect(firstOfTheirType == [true, false, true, false])
        #expect(counters.packetsSent == 4)
        #expect(counters.bytesSent == 328)
        #expect(counters.sendFailures == 0)
    }

    @Test func everyDroppedSendIsCountedApartFromWhatLeft() {
        var counters = SessionCounters()
        _ = counters.sent(payloadBytes: 100, payloadType: 111)
        for _ in 0..<3 { counters.sendFailed() }
        #expect(counters.sendFailures == 3)
        #expect(counters.packetsSent == 1)
        #expect(counters.bytesSent == 100)
    }

    @Test func playoutConcealmentPreEncodedFramesAndInBandDigitsAddUp() {
        var counters = SessionCounters()
        for _ in 0..<5 { counters.played(samples: 960) }
        counters.concealed(samples: 960)
        counters.concealed(samples: 480)
        counters.sentPreEncodedFrame()
        counters.heardInBandDigit()
        counters.heardInBandDigit()
        #expect(counters.totalSamplesPlayed == 4800)
        #expect(counters.concealedSamples == 1440)
        #expect(counters.preEncodedFramesSent == 1)
        #expect(counters.inBandDigitsReceived == 2)
    }
}
