import Foundation
import Logging
import Media
import Parley
import SDP
import TestSupport

/// Media options, waits and figures shared by the interop tests.
enum InteropMedia {
    static let logger: Logger = {
        var logger = Logger(label: "parley.interop")
        logger.logLevel = .warning
        return logger
    }()

    /// One codec (and its telephone-event), or every codec we have for "any".
    static func capabilities(_ codec: String) -> AudioCapabilities {
        let standard = AudioCapabilities.standard.codecs
        switch codec {
        case "opus": return AudioCapabilities(codecs: standard.filter { $0.name == "opus" || ($0.name == "telephone-event" && $0.clockRate == 48000) })
        case "pcmu": return AudioCapabilities(codecs: standard.filter { $0.name == "PCMU" || ($0.name == "telephone-event" && $0.clockRate == 8000) })
        default: return .standard
        }
    }

    static func options(interface: String, codec: String = "any", tone: Double?, record: String?, vanilla: Bool = false) -> MediaOptions {
        var options = MediaOptions()
        options.allowedInterfaces = [interface]
        options.ipv6 = false
        options.capabilities = capabilities(codec)
        if vanilla { options.iceMode = .vanilla(collectionTimeout: .seconds(3)) }
        options.source = tone.map { .tone(frequency: $0) } ?? .silence
        options.sink = record.map { .wav(path: $0, stereo: false) } ?? .null
        return options
    }

    static func temporaryFile(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("parley-interop-\(UUID().uuidString)-\(name)").path
    }

    /// The figures the issue asks for, printed in the test output.
    static func report(_ label: String, _ statistics: MediaStatistics?) {
        guard let s = statistics else {
            print("[interop] \(label): no media statistics")
            return
        }
        let concealedPercent = s.totalSamplesPlayed > 0 ? 100 * Double(s.concealedSamples) / Double(s.totalSamplesPlayed) : 0
        print("[interop] \(label): codec \(s.codec), sent \(s.packetsSent), received \(s.packetsReceived), lost \(s.packetsLost), "
            + "remote lost \(s.remotePacketsLost.map(String.init) ?? "n/a"), jitter \(String(format: "%.1f", s.jitterMs)) ms, "
            + "RTT \(s.rttMs.map { String(format: "%.1f", $0) } ?? "n/a") ms, jitter-buffer delay \(String(format: "%.1f", s.jitterBufferDelayMs)) ms "
            + "(target \(s.jitterBufferTargetMs) ms), concealed \(s.concealedSamples)/\(s.totalSamplesPlayed) samples "
            + "(\(String(format: "%.2f", concealedPercent)) %), late \(s.latePackets), SRTP \(s.srtpProfile ?? "none")")
    }

    /// Largest absolute sample of a recording: 0 means nothing was ever played into it.
    static func peak(_ path: String) throws -> Int {
        guard FileManager.default.fileExists(atPath: path) else { return 0 }
        return try Recording.samples(path).reduce(0) { max($0, abs(Int($1))) }
    }
}
