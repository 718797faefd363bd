@testable import CLI
import Foundation
import Media
import Parley
import Testing

/// The status line fits the terminal: keys go first, then the least needed fields, and it is
/// never longer than the width less one column (issue 30, item 1).
@Suite struct StatusLineTests {
    /// A call's statistics as `--json` shows them, decoded (the type has no public initialiser).
    private static let audio: MediaStatistics? = {
        let json = """
            {"codec": "opus", "payloadType": 111, "packetsSent": 100, "bytesSent": 8000, "packetsReceived": 97, "bytesReceived": 7800,
             "packetsLost": 3, "jitterMs": 2, "rttMs": 12, "concealedSamples": 0, "totalSamplesPlayed": 48000, "jitterBufferDelayMs": 20,
             "jitterBufferTargetMs": 20, "latePackets": 0, "duplicatePackets": 0, "audioLevel": 0.2, "localAudioLevel": 0.1,
             "srtpAuthenticationFailures": 0, "srtpReplays": 0, "dtmfReceived": 0, "muted": false, "sendFailures": 0, "preEncodedFramesSent": 0,
             "malformedPackets": 0, "unknownDatagrams": 0, "dtlsDatagramsRefused": 0, "fecNegotiated": false}
            """
        return try? JSONDecoder().decode(MediaStatistics.self, from: Data(json.utf8))
    }()

    @Test func statisticsDecode() {
        #expect(Self.audio != nil)
    }

    private static func fields(muted: Bool = false) -> [StatusLine.Field] {
        let audio = Self.audio
        return CallPresenter.statusFields(.active, elapsed: .seconds(75), audio: audio, quality: nil, audioLabel: "mic+speaker", muted: muted)
    }

    @Test(arguments: [20, 40, 60, 80, 120, 160, 300])
    func neverWiderThanTheTerminal(width: Int) {
        let text = StatusLine.fit(Self.fields(muted: true), width: width)
        #expect(text.count <= width - 1)
        #expect(text.hasPrefix(String("active 01:15".prefix(width - 1))))
    }

    @Test func keysGoFirstThenTheDevices() {
        let full = StatusLine.fit(Self.fields(), width: 1000)
        #expect(full.contains(CallKey.statusText))
        let narrower = StatusLine.fit(Self.fields(), width: full.count)
        #expect(!narrower.contains("[0-9"))
        #expect(narrower.contains("mic+speaker"))
        let eighty = StatusLine.fit(Self.fields(muted: true), width: 80)
        #expect(eighty.contains("loss 3") && eighty.contains("MUTED") && eighty.contains("in ") && eighty.contains("opus"))
        let forty = StatusLine.fit(Self.fields(muted: true), width: 40)
        #expect(forty.contains("active 01:15") && forty.contains("MUTED") && forty.contains("loss 3"))
        #expect(!forty.contains("jitter"))
    }

    @Test func typingKeepsItsEnd() {
        #expect(StatusLine.cut("transfer to: 0123456789", width: 11, keepingEnd: true) == "0123456789")
        #expect(StatusLine.cut("short", width: 80) == "short")
    }
}
