import SDP

/// How our Opus encoder runs, from what the remote side asked for in its fmtp (RFC 7587 §6.1):
/// its maxplaybackrate and maxaveragebitrate bound what we send, its useinbandfec and usedtx say
/// what it can use.
public struct OpusSettings: Sendable, Equatable {
    /// Target bitrate in bit/s.
    public var bitrate: Int
    /// Highest audio sample rate worth coding (8000...48000).
    public var maxPlaybackRate: Int
    public var inbandFEC: Bool
    public var dtx: Bool
    /// Expected loss, which tunes how much FEC the encoder spends.
    public var expectedLossPercent: Int
    /// Packet duration in milliseconds (from a=ptime; 20 by default).
    public var frameMilliseconds: Int
    /// libopus complexity 0...10: lower spends less CPU per call (bots with many calls).
    public var complexity: Int

    /// What libwebrtc uses on desktops (9; 5 on Android and iOS): see docs/media.md, "Opus".
    public static let defaultComplexity = 9
    public static let complexityRange = 0...10

    public init(bitrate: Int = 32000, maxPlaybackRate: Int = 48000, inbandFEC: Bool = true, dtx: Bool = false, expectedLossPercent: Int = 10, frameMilliseconds: Int = 20, complexity: Int = defaultComplexity) {
        self.bitrate = bitrate
        self.maxPlaybackRate = maxPlaybackRate
        self.inbandFEC = inbandFEC
        self.dtx = dtx
        self.expectedLossPercent = expectedLossPercent
        self.frameMilliseconds = frameMilliseconds
        self.complexity = min(Self.complexityRange.upperBound, max(Self.complexityRange.lowerBound, complexity))
    }

    /// Settings for sending to a peer whose Opus fmtp is `remoteParameters` and whose ptime is `ptime`.
    public static func negotiated(remoteParameters: String?, ptime: Double?) -> OpusSettings {
        var settings = OpusSettings()
        let fmtp = FormatParameters(format: "0", parameters: remoteParameters ?? "")
        if let value = fmtp.value(for: "maxaveragebitrate").flatMap(Int.init), (6000...510_000).contains(value) {
            settings.bitrate = min(settings.bitrate, value)
        }
        if let value = fmtp.value(for: "maxplaybackrate").flatMap(Int.init), (8000...48000).contains(value) {
            settings.maxPlaybackRate = value
        }
        if let value = fmtp.value(for: "useinbandfec") { settings.inbandFEC = value == "1" }
        if let value = fmtp.value(for: "usedtx") { settings.dtx = value == "1" }
        // The media clock ticks every 20 ms, so packet times are whole multiples of 10 ms that it can carry.
        if let ptime, [10.0, 20, 40, 60].contains(ptime) {
            settings.frameMilliseconds = Int(ptime)
        }
        return settings
    }
}
