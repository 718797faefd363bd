/// A `sip:` or `sips:` URI (RFC 3261 §19.1): `sip:user:password@host:port;params?headers`.
/// The user part stays escaped as written (`%40`); `decodedUser` undoes the escapes.
package struct SIPURI: Sendable, Equatable, CustomStringConvertible {
    package var scheme: String
    package var user: String?
    /// Deprecated by RFC 3261 §19.1.1 but legal; never shown by `description`.
    package var password: String?
    /// As written; an IPv6 reference keeps its brackets.
    package var host: String
    package var port: Int?
    package var parameters: SIPParameters
    /// The `?name=value&…` part without the `?`, as written.
    package var headers: String?

    package init(scheme: String = "sip", user: String? = nil, host: String, port: Int? = nil, parameters: SIPParameters = SIPParameters()) {
        self.scheme = scheme
        self.user = user
        self.host = host
        self.port = port
        self.parameters = parameters
    }

    package init(parsing text: String, line: Int = 0, field: String = "URI") throws(SIPParseError) {
        func error(_ reason: String) -> SIPParseError { SIPParseError(.badValue, line: line, "\(field): \(reason)") }
        guard let colon = text.firstIndex(of: ":") else { throw error("a URI needs a scheme") }
        scheme = text[..<colon].lowercased()
        guard scheme == "sip" || scheme == "sips" else { throw error("the URI scheme is not sip or sips") }
        var rest = Substring(text[text.index(after: colon)...])
        guard rest.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F && $0 != 0x22 && $0 != 0x3C && $0 != 0x3E }) else {
            throw error("the URI has whitespace, a control character, a quote or an angle bracket")
        }
        guard Self.escapesAreValid(rest) else { throw error("a % in the URI is not followed by two hex digits") }
        if let question = rest.firstIndex(of: "?") {
            headers = String(rest[rest.index(after: question)...])
            rest = rest[..<question]
        }
        if let at = rest.firstIndex(of: "@") {
            let userInfo = rest[..<at]
            if let separator = userInfo.firstIndex(of: ":") {
                user = String(userInfo[..<separator])
                password = String(userInfo[userInfo.index(after: separator)...])
            } else {
                user = String(userInfo)
            }
            guard user?.isEmpty == false else { throw error("the URI has an @ with no user before it") }
            rest = rest[rest.index(after: at)...]
        }
        let hostEnd: Substring.Index
        if rest.first == "[" {
            guard let close = rest.firstIndex(of: "]") else { throw error("an IPv6 reference is not closed") }
            hostEnd = rest.index(after: close)
            let inside = rest[rest.index(after: rest.startIndex)..<close]
            guard !inside.isEmpty, inside.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw error("the IPv6 reference is not an address")
            }
        } else {
            hostEnd = rest.firstIndex { $0 == ":" || $0 == ";" } ?? rest.endIndex
            let name = rest[..<hostEnd]
            guard !name.isEmpty, name.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "." }) else {
                throw error("the host is not a name or an address")
            }
        }
        host = String(rest[..<hostEnd])
        rest = rest[hostEnd...]
        if rest.first == ":" {
            let digits = rest.dropFirst().prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count <= 5, let number = Int(digits), number <= 65_535 else {
                throw error("the port is not a number from 0 to 65535")
            }
            port = number
            rest = rest.dropFirst(1 + digits.count)
        }
        var scanner = SIPValueScanner(String(rest), line: line, field: field)
        parameters = try scanner.parameters()
        guard scanner.atEnd else { throw error("unexpected text after the host") }
    }

    /// The user with its %-escapes undone.
    package var decodedUser: String? { user.map(Self.unescape) }

    /// `transport=` in lower case, if given.
    package var transport: String? { parameters["transport"]?.lowercased() }

    /// `;lr`: a loose router (RFC 3261 §16.12.1.1).
    package var isLooseRouter: Bool { parameters.contains("lr") }

    /// The URI as written, but with a password replaced by `***`.
    package var description: String { text(showingPassword: false) }

    /// The URI as it goes in a message.
    package var serialized: String { text(showingPassword: true) }

    private func text(showingPassword: Bool) -> String {
        var text = scheme + ":"
        if let user {
            text += user
            if let password { text += ":" + (showingPassword ? password : "***") }
            text += "@"
        }
        text += host
        if let port { text += ":\(port)" }
        text += parameters.description
        if let headers { text += "?" + headers }
        return text
    }

    private static func escapesAreValid(_ text: Substring) -> Bool {
        var bytes = text.utf8.makeIterator()
        while let byte = bytes.next() {
            guard byte == UInt8(ascii: "%") else { continue }
            guard let high = bytes.next(), let low = bytes.next(), isHex(high), isHex(low) else { return false }
        }
        return true
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    package static func unescape(_ text: String) -> String {
        var out: [UInt8] = []
        var bytes = Array(text.utf8)[...]
        while let byte = bytes.popFirst() {
            if byte == UInt8(ascii: "%"), bytes.count >= 2, let value = UInt8(String(decoding: bytes.prefix(2), as: UTF8.self), radix: 16) {
                out.append(value)
                bytes = bytes.dropFirst(2)
            } else {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
