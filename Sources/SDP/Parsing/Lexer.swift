/// Byte-level helpers for SDP's ASCII grammar. They work on UTF-8 code units so that a
/// combining character after a separator can never hide the separator (as it would with
/// Swift's grapheme-based `Character` splitting).
enum Lexer {
    static let space: UInt8 = 0x20

    /// Splits on single spaces. `nil` when a field is empty: a leading, trailing or doubled space.
    static func fields(_ text: some StringProtocol) -> [String]? {
        let parts = text.utf8.split(separator: space, omittingEmptySubsequences: false)
        var result: [String] = []
        result.reserveCapacity(parts.count)
        for part in parts {
            if part.isEmpty { return nil }
            result.append(String(decoding: part, as: UTF8.self))
        }
        return result
    }

    /// Splits at the first occurrence of `separator`: the part before, and the part after (nil when absent).
    static func splitFirst(_ text: some StringProtocol, at separator: UInt8) -> (String, String?) {
        let bytes = text.utf8
        guard let index = bytes.firstIndex(of: separator) else {
            return (String(decoding: bytes, as: UTF8.self), nil)
        }
        let head = String(decoding: bytes[bytes.startIndex..<index], as: UTF8.self)
        let tail = String(decoding: bytes[bytes.index(after: index)...], as: UTF8.self)
        return (head, tail)
    }

    /// Splits on every occurrence of `separator`, keeping empty parts.
    static func split(_ text: some StringProtocol, on separator: UInt8) -> [String] {
        text.utf8.split(separator: separator, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    static func isDigits(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
    }

    /// RFC 8866 `token`: printable ASCII except separators.
    static func isToken(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isTokenByte)
    }

    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x21, 0x23...0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x30...0x39, 0x41...0x5A, 0x5E...0x7E:
            return true
        default:
            return false
        }
    }

    /// Bounded decimal: digits only, at most 19 of them, value within `range`.
    static func integer(_ text: some StringProtocol, in range: ClosedRange<Int>) -> Int? {
        guard isDigits(text), text.utf8.count <= 18, let value = Int(text), range.contains(value) else { return nil }
        return value
    }

    static func uint32(_ text: some StringProtocol) -> UInt32? {
        guard isDigits(text), text.utf8.count <= 10 else { return nil }
        return UInt32(text)
    }

    /// A decimal number with an optional fraction, e.g. `20` or `2.5`.
    static func decimal(_ text: some StringProtocol) -> Double? {
        let parts = split(text, on: 0x2E)
        guard parts.count <= 2, parts.allSatisfy({ isDigits($0) }), text.utf8.count <= 12 else { return nil }
        return Double(String(text))
    }
}
