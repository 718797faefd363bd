/// A snapshot of one call's audio, in the shape of the `--json` stats event's `audio` object
/// (docs/cli.md): `packetsSent`, `packetsReceived`, `packetsLost`, `jitterMs`, `rttMs`, and more.
public struct MediaStatistics: Sendable, Equatable, Codable {
    public var codec: String
    public var payloadType: Int
    public var packetsSent: Int
    /// RTP payload bytes (RFC 3550 sender octet count).
    public var bytesSent: Int
    public var packetsReceived: Int
    public var bytesReceived: Int
    /// RFC 3550 cumulative loss of the stream we receive.
    public var packetsLost: Int
    /// Interarrival jitter of the stream we receive, in milliseconds.
    public var jitterMs: Double
    /// From the peer's reception reports (LSR/DLSR); nil until one arrives.
    public var rttMs: Double?
    /// Loss of our stream as the peer reports it; nil until a report arrives.
    public var remotePacketsLost: Int?
    /// Samples played that were not decoded from a received packet (PLC, FEC, expansion).
    public var concealedSamples: Int
    public var totalSamplesPlayed: Int
    /// Mean jitter-buffer delay over the frames played so far.
    public var jitterBufferDelayMs: Double
    public var jitterBufferTargetMs: Int
    /// Packets that arrived after their playout time, and duplicates.
    public var latePackets: Int
    public var duplicatePackets: Int
    /// Level of the audio we play, 0...1 (RMS over the last tick).
    public var audioLevel: Double
    /// Level of the audio we send, 0...1.
    public var localAudioLevel: Double
    public var srtpProfile: String?
    public var srtpAuthenticationFailures: Int
    public var srtpReplays: Int
    public var dtmfReceived: Int
    public var muted: Bool
    /// Frames and RTCP reports that should have left and did not: the encoder failed, the packet
    /// could not be written, or the transport refused it (no selected pair, a full socket
    /// buffer). The call goes on; they are counted.
    public var sendFailures: Int = 0
    /// Frames sent as a source handed them, pre-encoded (a bot's cached prompts), not encoded here.
    public var preEncodedFramesSent: Int = 0
    /// Authenticated RTP/RTCP that did not parse (an RTCP length that lies, a truncated header):
    /// dropped, the call goes on.
    public var malformedPackets: Int = 0
    /// Datagrams that are neither DTLS nor RTP/RTCP (stray STUN after ICE, garbage): dropped.
    public var unknownDatagrams: Int = 0
    /// DTLS handshake datagrams the transport refused because ICE had no pair yet, and that were
    /// sent again when it connected (docs/performance.md, "Call setup").
    public var dtlsDatagramsRefused: Int = 0
    /// Opus with in-band FEC negotiated (useinbandfec=1): a lost frame can be rebuilt from the
    /// next packet, which the call's MOS estimate counts (docs/calls.md).
    public var fecNegotiated: Bool = false
}
