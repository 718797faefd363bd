import Parley

/// A `media` event written straight into the link's buffer: base64 without Foundation, so the
/// link thread allocates nothing per frame (docs/agents.md, "Audio as base64").
enum AgentMediaText {
    private static let prefix = Array(#"{"event":"media","payload":""#.utf8)
    private static let suffix = Array(#""}"#.utf8)
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// The largest frame this fits: 20 ms at 48 kHz is 960 samples.
    static func length(samples: Int) -> Int { prefix.count + (samples * 2 + 2) / 3 * 4 + suffix.count }

    static func write(_ samples: UnsafeBufferPointer<Int16>, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        var writer = AgentWireWriter(buffer)
        for byte in prefix { writer.byte(byte) }
        writer.audio(samples, .linear16)
        for byte in suffix { writer.byte(byte) }
        return writer.count
    }
}
