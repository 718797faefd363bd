/// A `media` event written straight into the link's buffer: base64 without Foundation, so the
/// link thread allocates nothing per frame (docs/agents.md, "Audio as base64").
enum AgentMediaText {
    private static let prefix = Array(#"{"event":"media","payload":""#.utf8)
    private static let suffix = Array(#""}"#.utf8)
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// The largest frame this fits: 20 ms at 48 kHz is 960 samples.
    static func length(samples: Int) -> Int { prefix.count + (samples * 2 + 2) / 3 * 4 + suffix.count }

    static func write(_ samples: UnsafeBufferPointer<Int16>, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        var cursor = 0
        for byte in prefix { buffer[cursor] = byte; cursor += 1 }
        let byteCount = samples.count * 2
        func byte(_ index: Int) -> UInt8 {
            let sample = UInt16(bitPattern: samples[index / 2])
            return index % 2 == 0 ? UInt8(sample & 0xFF) : UInt8(sample >> 8)
        }
        var index = 0
        while index < byteCount {
            let first = byte(index)
            let second = index + 1 < byteCount ? byte(index + 1) : 0
            let third = index + 2 < byteCount ? byte(index + 2) : 0
            buffer[cursor] = alphabet[Int(first >> 2)]
            buffer[cursor + 1] = alphabet[Int((first & 0x03) << 4 | second >> 4)]
            buffer[cursor + 2] = index + 1 < byteCount ? alphabet[Int((second & 0x0F) << 2 | third >> 6)] : UInt8(ascii: "=")
            buffer[cursor + 3] = index + 2 < byteCount ? alphabet[Int(third & 0x3F)] : UInt8(ascii: "=")
            cursor += 4
            index += 3
        }
        for byte in suffix { buffer[cursor] = byte; cursor += 1 }
        return cursor
    }
}
