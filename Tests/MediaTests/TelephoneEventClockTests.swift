@testable import Media
import Testing

/// RFC 4733 events at 8000 Hz beside Opus at 48000 (what browsers and baresip answer, docs/sip.md
/// "Media per peer"): one event's packets share the stream's timestamp at its start, its duration counts
/// 8000 Hz units (160 per 20 ms packet), and the audio around it keeps Opus's 960 per packet.
@Suite struct TelephoneEventClockTests {
    private struct Packet {
        let payloadType: UInt8
        let marker: Bool
        let timestamp: UInt32
        let payload: ArraySlice<UInt8>
        init(_ bytes: [UInt8]) {
            payloadType = bytes[1] & 0x7F
            marker = bytes[1] & 0x80 != 0
            timestamp = bytes[4..<8].reduce(0) { $0 << 8 | UInt32($1) }
            payload = bytes[12...]
        }
        var eventDuration: Int { Int(payload[payload.startIndex + 2]) << 8 | Int(payload[payload.startIndex + 3]) }
        var eventEnds: Bool { payload[payload.startIndex + 1] & 0x80 != 0 }
    }

    @Test func anEventBesideOpusCountsItsDurationAt8000HzOnTheStreamsTimestamp() throws {
        let transport = SentDatagrams()
        var configuration = MediaSessionConfiguration(codec: .opus(payloadType: 111, settings: OpusSettings()), telephoneEventPayloadType: 101,
                                                      dtmfDurationMilliseconds: 100)
        configuration.telephoneEventClockRate = 8000
        let session = try MediaSession(configuration: configuration, security: .unencrypted, transport: transport,
                                       source: ToneSource(frequency: 440, sampleRate: 48000), sink: CapturingSink(capacity: 48000))
        let clock = MediaClock(manual: true)
        session.start(on: clock)
        defer { session.stop(clock: clock); clock.stop() }
        for _ in 0..<5 { clock.step() }
        try session.sendDTMF("5")
        for _ in 0..<15 { clock.step() }

        let packets = transport.all.filter { $0.count >= 12 && $0[1] & 0x7F != 72 && $0[1] & 0x7F != 73 }.map(Packet.init)
        let events = packets.filter { $0.payloadType == 101 }
        let audio = packets.filter { $0.payloadType == 111 }
        try #require(events.count >= 5, "the event's packets were sent")
        let start = try #require(events.first).timestamp
        #expect(events.allSatisfy { $0.timestamp == start }, "one event, one timestamp")
        #expect(try #require(events.first).marker)
        // 160 units per 20 ms packet at 8000 Hz, to 800 for 100 ms; not Opus's 960 per packet.
        let durations = events.map(\.eventDuration)
        #expect(Array(durations.prefix(5)) == [160, 320, 480, 640, 800])
        #expect(events.last?.eventEnds == true && events.last?.eventDuration == 800)
        // The audio before and after steps 960 per packet, and the event starts where the audio was.
        let before = try #require(audio.last { $0.timestamp < start })
        #expect(start == before.timestamp &+ 960)
        let after = try #require(audio.first { $0.timestamp > start })
        #expect((after.timestamp &- start) % 960 == 0)
        let steps = zip(audio, audio.dropFirst()).map { $1.timestamp &- $0.timestamp }
        #expect(steps.allSatisfy { $0 % 960 == 0 })
    }
}
