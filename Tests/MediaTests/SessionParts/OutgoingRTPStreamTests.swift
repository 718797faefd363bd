@testable import Media
import Testing

/// The numbering of what a session sends: sequence, timestamp and the talkspurt marker.
@Suite struct OutgoingRTPStreamTests {
    @Test func theFirstPacketAndTheFirstAfterASkippedFrameCarryTheMarker() {
        var stream = OutgoingRTPStream(sequenceNumber: 7, timestamp: 1000)
        #expect(stream.marksTalkspurt)
        stream.wroteMedia()
        #expect(!stream.marksTalkspurt)
        stream.skippedAFrame()
        #expect(stream.marksTalkspurt)
        stream.wroteMedia()
        #expect(!stream.marksTalkspurt)
    }

    @Test func sequenceCountsPacketsAndTimestampCountsFramesBothWrapping() {
        var stream = OutgoingRTPStream(sequenceNumber: .max, timestamp: .max - 100)
        stream.wrotePacket()
        #expect(stream.sequenceNumber == 0)
        stream.frameElapsed(timestampUnits: 960)
        #expect(stream.timestamp == 859)
        // A skipped frame's span still passes; its sequence number does not.
        stream.skippedAFrame()
        stream.frameElapsed(timestampUnits: 960)
        #expect(stream.timestamp == 1819)
        #expect(stream.sequenceNumber == 0)
    }
}
