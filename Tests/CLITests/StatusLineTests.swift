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

    private static func fields(_ state: CallState = .active, muted: Bool = false) -> [StatusLine.Field] {
        let audio = Self.audio
        return CallPresenter.statusFields(state, elapsed: .seconds(75), audio: audio, quality: nil, audioLabel: "mic+speaker", muted: muted)
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

    /// Below the whole reminder's width the line keeps `[? keys]`, which goes only after the
    /// codec, so that at 80 and 60 columns the way to the keys is on screen.
    @Test(arguments: [60, 80, 120])
    func theKeysHintStaysAtNormalWidths(width: Int) {
        let text = StatusLine.fit(Self.fields(muted: true), width: width)
        #expect(text.hasSuffix(CallKey.statusHint), "\(width) columns: \(text)")
        #expect(!text.contains(CallKey.statusText))
    }

    @Test func theKeysHintGoesLast() {
        let narrow = StatusLine.fit(Self.fields(muted: true), width: 30)
        #expect(!narrow.contains("?"))
        #expect(StatusLine.fit(Self.fields(), width: 1000).hasSuffix(CallKey.statusText))
    }

    /// Held, no RTP is sent: the out meter shows no level, whatever the source's.
    @Test(arguments: [CallState.held, .remotelyHeld, .doubleHeld])
    func theOutMeterShowsNoLevelOnHold(state: CallState) throws {
        let active = try #require(Self.fields().first { $0.text.hasPrefix("out ") })
        #expect(active.text != "out -----" && active.text.contains("#"))
        let held = try #require(Self.fields(state).first { $0.text.hasPrefix("out ") })
        #expect(held.text == "out -----")
    }

    @Test func theReminderNamesEveryKeyAndFitsEightyColumns() {
        for key in CallKey.allCases { #expect(CallKey.statusText.contains(key.brief)) }
        #expect(CallKey.statusText.count <= 79)
        #expect(CallKey(Character("?")) == .showKeys)
    }

    @Test func typingKeepsItsEnd() {
        #expect(StatusLine.cut("transfer to: 0123456789", width: 11, keepingEnd: true) == "0123456789")
        #expect(StatusLine.cut("short", width: 80) == "short")
    }
}
