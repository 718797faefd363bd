/// Removes secrets from text before it is logged: SDP ICE passwords and SDES keys, JSON fields
/// that hold passwords, tokens or TURN credentials, and `user:password@` in URLs.
/// Signalling frames and SDP both pass through here on their way to a log line.
package enum SecretRedactor {
    package static let mask = "[redacted]"

    /// JSON members whose string value is a secret, wherever they appear.
    static let secretKeys = ["passwd", "password", "login_token", "token", "credential", "turn_password", "ice-pwd", "icePwd"]

    package static func redact(_ text: String) -> String {
        var result = text
        for key in secretKeys { result = redactJSONString(member: key, in: result) }
        result = redactAfter(prefix: "a=ice-pwd:", in: result)
        result = redactInlineKeys(in: result)
        result = redactURLPasswords(in: result, separator: "://")
        for scheme in ["turn:", "turns:"] { result = redactURLPasswords(in: result, separator: scheme) }
        return result
    }

    /// `"key":"value"` (with optional spaces) → `"key":"[redacted]"`; escaped quotes inside the
    /// value are skipped correctly.
    private static func redactJSONString(member key: String, in text: String) -> String {
        let needle = "\"\(key)\""
        guard text.contains(needle) else { return text }
        var output = ""
        var rest = Substring(text)
        while let range = rest.range(of: needle) {
            output += rest[..<range.upperBound]
            rest = rest[range.upperBound...]
            let afterSpaces = rest.drop { $0 == " " }
            guard afterSpaces.first == ":" else { continue }
            let value = afterSpaces.dropFirst().drop { $0 == " " }
            guard value.first == "\"" else { continue }
            var index = value.index(after: value.startIndex)
            var escaped = false
            while index < value.endIndex {
                let character = value[index]
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { break }
                index = value.index(after: index)
            }
            guard index < value.endIndex else { continue }
            output += ":\"\(mask)\""
            rest = value[value.index(after: index)...]
        }
        return output + rest
    }

    /// Everything after `prefix` up to the end of the line (SDP `\r\n`, or a JSON-escaped `\r\n`).
    private static func redactAfter(prefix: String, in text: String) -> String {
        guard text.contains(prefix) else { return text }
        var output = ""
        var rest = Substring(text)
        while let range = rest.range(of: prefix) {
            output += rest[..<range.upperBound] + mask
            rest = rest[range.upperBound...]
            let end = rest.firstIndex { $0 == "\r" || $0 == "\n" || $0 == "\\" || $0 == "\"" } ?? rest.endIndex
            rest = rest[end...]
        }
        return output + rest
    }

    /// `inline:KEY|lifetime|mki` in a=crypto lines: the key and its parameters.
    private static func redactInlineKeys(in text: String) -> String {
        guard text.contains("inline:") else { return text }
        var output = ""
        var rest = Substring(text)
        while let range = rest.range(of: "inline:") {
            output += rest[..<range.upperBound] + mask
            rest = rest[range.upperBound...]
            let end = rest.firstIndex { $0 == " " || $0 == ";" || $0 == "\r" || $0 == "\n" || $0 == "\\" || $0 == "\"" } ?? rest.endIndex
            rest = rest[end...]
        }
        return output + rest
    }

    /// `scheme://user:password@host` (and `turn:user:password@host`, which people write though
    /// RFC 7065 has no user part) → the same with the password masked.
    private static func redactURLPasswords(in text: String, separator: String) -> String {
        guard text.contains(separator) else { return text }
        var output = ""
        var rest = Substring(text)
        while let range = rest.range(of: separator) {
            output += rest[..<range.upperBound]
            rest = rest[range.upperBound...]
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == " " || $0 == "\"" || $0 == "\n" } ?? rest.endIndex
            let authority = rest[..<authorityEnd]
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                output += authority[...colon] + mask
                rest = rest[at...]
            }
        }
        return output + rest
    }
}
