import Parley

/// A program's `media` event read without Foundation: the per-frame message of `--agent-exec`
/// and of base64 WebSocket programs, decoded straight into the link's samples so the link thread
/// allocates nothing per frame (the JSON decoder allocated several objects a message).
extension AgentMediaText {
    private static let eventKey = Array("event".utf8)
    private static let payloadKey = Array("payload".utf8)
    private static let mediaValue = Array("media".utf8)
    /// Each base64 character's value; 0xFF for a byte outside the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in alphabet.enumerated() { table[Int(character)] = UInt8(value) }
        return table
    }()

    /// The samples of `{"event": "media", "payload": "…"}` (the two keys in either order, any
    /// JSON whitespace, no escapes) written into `samples`; nil for any other message, a payload
    /// that is not whole 16-bit samples of base64 or one larger than `samples`: the full parser
    /// (AgentMessage.swift) then takes the message and gives its typed error.
    static func read(_ message: UnsafeRawBufferPointer, into samples: UnsafeMutableBufferPointer<Int16>) -> Int? {
        var cursor = 0
        func skipSpace() {
            while cursor < message.count, message[cursor] == 0x20 || message[cursor] == 0x09 || message[cursor] == 0x0A || message[cursor] == 0x0D { cursor += 1 }
        }
        func take(_ byte: UInt8) -> Bool {
            skipSpace()
            guard cursor < message.count, message[cursor] == byte else { return false }
            cursor += 1
            return true
        }
        /// A string without escapes; its bytes' range.
        func string() -> Range<Int>? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = cursor
            while cursor < message.count, message[cursor] != UInt8(ascii: "\"") {
                if message[cursor] == UInt8(ascii: "\\") { return nil }
                cursor += 1
            }
            guard cursor < message.count else { return nil }
            cursor += 1
            return start..<(cursor - 1)
        }
        func equals(_ range: Range<Int>, _ expected: [UInt8]) -> Bool {
            range.count == expected.count && zip(range, expected).allSatisfy { message[$0] == $1 }
        }
        guard take(UInt8(ascii: "{")) else { return nil }
        var event: Range<Int>?
        var payload: Range<Int>?
        for member in 0..<2 {
            guard let key = string(), take(UInt8(ascii: ":")), let value = string() else { return nil }
            if event == nil, equals(key, eventKey) {
                event = value
            } else if payload == nil, equals(key, payloadKey) {
                payload = value
            } else {
                return nil
            }
            guard take(member == 0 ? UInt8(ascii: ",") : UInt8(ascii: "}")) else { return nil }
        }
        skipSpace()
        guard cursor == message.count, let event, let payload, equals(event, mediaValue) else { return nil }
        return decode(UnsafeRawBufferPointer(rebasing: message[payload]), into: samples)
    }

    /// Base64 (with its padding) of little-endian 16-bit samples into `samples`.
    private static func decode(_ text: UnsafeRawBufferPointer, into samples: UnsafeMutableBufferPointer<Int16>) -> Int? {
        guard let byteCount = decodeBytes(text, into: UnsafeMutableRawBufferPointer(samples)), byteCount % 2 == 0 else { return nil }
        let count = byteCount / 2
        for sample in 0..<count { samples[sample] = Int16(littleEndian: samples[sample]) }
        return count
    }

    /// Canonical base64 (with its padding) into `bytes`; nil for anything else or more than fits.
    static func decodeBytes(_ text: UnsafeRawBufferPointer, into bytes: UnsafeMutableRawBufferPointer) -> Int? {
        guard text.count % 4 == 0 else { return nil }
        let padding = text.count == 0 ? 0 : (text[text.count - 1] == UInt8(ascii: "=") ? 1 : 0) + (text.count > 1 && text[text.count - 2] == UInt8(ascii: "=") ? 1 : 0)
        let byteCount = text.count / 4 * 3 - padding
        guard byteCount <= bytes.count else { return nil }
        var written = 0
        var index = 0
        while index < text.count {
            let last = index + 4 == text.count
            var group: UInt32 = 0
            for offset in 0..<4 {
                let character = text[index + offset]
                let value: UInt8
                if last, character == UInt8(ascii: "="), offset >= 4 - padding {
                    value = 0
                } else {
                    value = values[Int(character)]
                    guard value != 0xFF else { return nil }
                }
                group = group << 6 | UInt32(value)
            }
            // Padding bits left over must be zero: canonical base64 only, as a strict decoder reads it.
            if last, padding > 0, group & ((1 << (8 * UInt32(padding))) - 1) != 0 { return nil }
            for shift: UInt32 in stride(from: 16, through: 0, by: -8) where written < byteCount {
                bytes[written] = UInt8(truncatingIfNeeded: group >> shift)
                written += 1
            }
            index += 4
        }
        return byteCount
    }
}
