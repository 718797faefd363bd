/// Reads the pieces header field values are made of (RFC 3261 §25.1): tokens, quoted strings
/// with their escapes, `;name=value` parameters, and comma-separated lists. Every failure is a
/// `SIPParseError` at the field's line, naming the field but never quoting its value.
struct SIPValueScanner {
    let bytes: [UInt8]
    private(set) var position = 0
    let line: Int
    let field: String

    init(_ value: String, line: Int, field: String) {
        bytes = Array(value.utf8)
        self.line = line
        self.field = field
    }

    var atEnd: Bool { position >= bytes.count }
    var peek: UInt8? { atEnd ? nil : bytes[position] }
    var rest: String { String(decoding: bytes[min(position, bytes.count)...], as: UTF8.self) }

    func error(_ reason: String) -> SIPParseError { SIPParseError(.badValue, line: line, "\(field): \(reason)") }

    mutating func skipWhitespace() {
        while let byte = peek, byte == 0x20 || byte == 0x09 { position += 1 }
    }

    /// Skips whitespace and the byte, if it is next.
    mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard peek == byte else { return false }
        position += 1
        return true
    }

    mutating func expect(_ byte: UInt8, _ what: String) throws(SIPParseError) {
        guard consume(byte) else { throw error("expected \(what)") }
    }

    /// 1*token-char, or nil when none is next.
    mutating func token() -> String? { run(while: Self.isTokenByte) }

    mutating func run(while accepts: (UInt8) -> Bool) -> String? {
        let start = position
        while let byte = peek, accepts(byte) { position += 1 }
        return position > start ? String(decoding: bytes[start..<position], as: UTF8.self) : nil
    }

    /// A quoted string with its quotes removed and `\x` escapes undone (RFC 3261 §25.1 quoted-pair).
    mutating func quotedString() throws(SIPParseError) -> String {
        guard consume(0x22) else { throw error("expected a quoted string") }
        var text: [UInt8] = []
        while let byte = peek {
            position += 1
            switch byte {
            case 0x22: return String(decoding: text, as: UTF8.self)
            case 0x5C:
                guard let escaped = peek, escaped != 0x0A, escaped != 0x0D else { throw error("a backslash ends the quoted string") }
                text.append(escaped)
                position += 1
            default: text.append(byte)
            }
        }
        throw error("a quoted string is not closed")
    }

    /// `*( SEMI generic-param )`: `;name`, `;name=token-or-host`, `;name="quoted"`.
    mutating func parameters() throws(SIPParseError) -> SIPParameters {
        var parameters = SIPParameters()
        while consume(0x3B) {
            skipWhitespace()
            guard let name = token() else { throw error("a parameter without a name") }
            guard consume(0x3D) else {
                parameters.append(name, nil)
                continue
            }
            skipWhitespace()
            if peek == 0x22 {
                parameters.append(name, try quotedString(), quoted: true)
            } else if let value = run(while: Self.isParameterValueByte) {
                parameters.append(name, value)
            } else {
                throw error("the parameter \(name.prefix(32)) has an empty value")
            }
        }
        skipWhitespace()
        return parameters
    }

    mutating func expectEnd() throws(SIPParseError) {
        skipWhitespace()
        guard atEnd else { throw error("unexpected text after the value") }
    }

    // MARK: Character classes

    /// token = 1*(alphanum / "-" / "." / "!" / "%" / "*" / "_" / "+" / "`" / "'" / "~")
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "!"), UInt8(ascii: "%"), UInt8(ascii: "*"),
             UInt8(ascii: "_"), UInt8(ascii: "+"), UInt8(ascii: "`"), UInt8(ascii: "'"), UInt8(ascii: "~"): true
        default: false
        }
    }

    /// A token or a host (an IPv6 reference has brackets and colons).
    static func isParameterValueByte(_ byte: UInt8) -> Bool {
        isTokenByte(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]")
    }

    static func isToken(_ text: String) -> Bool { !text.isEmpty && text.utf8.allSatisfy(isTokenByte) }

    /// `scheme ":" 1*char` with no whitespace, controls, quotes or angle brackets.
    static func isAbsoluteURI(_ text: String) -> Bool {
        guard let colon = text.utf8.firstIndex(of: UInt8(ascii: ":")) else { return false }
        let scheme = text.utf8[..<colon]
        guard let first = scheme.first, (0x41...0x5A).contains(first) || (0x61...0x7A).contains(first),
              scheme.allSatisfy({ isTokenByte($0) && $0 != UInt8(ascii: "%") }) else { return false }
        let rest = text.utf8[text.utf8.index(after: colon)...]
        return !rest.isEmpty && rest.allSatisfy { $0 > 0x20 && $0 != 0x7F && $0 != 0x22 && $0 != 0x3C && $0 != 0x3E }
    }

    /// Splits a list field at the commas outside quoted strings and angle brackets, each value
    /// trimmed, empty ones dropped.
    static func splitList(_ value: String) -> [String] {
        var values: [String] = []
        var current: [UInt8] = []
        var quoted = false
        var escaped = false
        var angle = false
        for byte in value.utf8 {
            if quoted {
                if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 { quoted = false }
            } else if byte == 0x22 {
                quoted = true
            } else if byte == 0x3C {
                angle = true
            } else if byte == 0x3E {
                angle = false
            } else if byte == 0x2C, !angle {
                values.append(trimmed(current))
                current = []
                continue
            }
            current.append(byte)
        }
        values.append(trimmed(current))
        return values.filter { !$0.isEmpty }
    }

    private static func trimmed(_ bytes: [UInt8]) -> String {
        let start = bytes.firstIndex { $0 != 0x20 && $0 != 0x09 } ?? bytes.endIndex
        let end = (bytes.lastIndex { $0 != 0x20 && $0 != 0x09 }).map { $0 + 1 } ?? start
        return String(decoding: bytes[start..<max(start, end)], as: UTF8.self)
    }

    /// A value written as a quoted string, with `"` and `\` escaped.
    static func quote(_ text: String) -> String {
        var out = "\""
        for character in text {
            if character == "\"" || character == "\\" { out.append("\\") }
            out.append(character)
        }
        return out + "\""
    }
}
