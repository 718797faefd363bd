/// `a=fingerprint:<hash function> <XX:XX:...>` (RFC 8122)
public struct Fingerprint: TypedAttribute, Equatable {
    public static let attributeName = "fingerprint"
    public var hashFunction: String
    /// Colon-separated hex pairs, as written.
    public var value: String

    public init(hashFunction: String, value: String) {
        self.hashFunction = hashFunction
        self.value = value
    }

    public init(attributeValue: String?) throws(AttributeValueError) {
        let fields = try Self.requireFields(attributeValue, atLeast: 2, "<hash function> <fingerprint>")
        guard fields.count == 2, Lexer.isToken(fields[0]) else {
            throw AttributeValueError("a=fingerprint must be \"<hash function> <XX:XX:...>\"")
        }
        let pairs = Lexer.split(fields[1], on: 0x3A)
        guard pairs.count <= 64, pairs.allSatisfy({ $0.utf8.count == 2 && $0.utf8.allSatisfy(Lexer.isHexDigit) }) else {
            throw AttributeValueError("a=fingerprint value must be colon-separated pairs of hex digits")
        }
        self.init(hashFunction: fields[0], value: fields[1])
    }

    public var attributeValue: String? { "\(hashFunction) \(value)" }

    /// The digest bytes.
    public var bytes: [UInt8] {
        Lexer.split(value, on: 0x3A).compactMap { UInt8($0, radix: 16) }
    }
}

/// `a=setup:<role>` (RFC 4145, RFC 5763)
public enum SetupRole: String, TypedAttribute, Equatable, CaseIterable, Codable {
    case active, passive, actpass, holdconn

    public static let attributeName = "setup"

    public init(attributeValue: String?) throws(AttributeValueError) {
        guard let value = attributeValue, let role = SetupRole(rawValue: value) else {
            throw AttributeValueError("a=setup must be active, passive, actpass or holdconn")
        }
        self = role
    }

    public var attributeValue: String? { rawValue }
}

/// `a=crypto:<tag> <suite> <key params> [<session params>]` (RFC 4568, SDES).
/// The key parameters are secrets: never logged, never quoted in errors.
public struct Crypto: TypedAttribute, Equatable, CustomStringConvertible {
    public static let attributeName = "crypto"
    public var tag: Int
    public var suite: String
    /// `inline:<base64 key||salt>[|<lifetime>][|<MKI>:<length>]`, possibly several joined by `;`.
    public var keyParameters: String
    public var sessionParameters: [String]

    public init(tag: Int, suite: String, keyParameters: String, sessionParameters: [String] = []) {
        self.tag = tag
        self.suite = suite
        self.keyParameters = keyParameters
        self.sessionParameters = sessionParameters
    }

    public init(attributeValue: String?) throws(AttributeValueError) {
        let fields = try Self.requireFields(attributeValue, atLeast: 3, "<tag> <crypto suite> inline:<key>")
        guard let tag = Lexer.integer(fields[0], in: 0...999_999_999) else {
            throw AttributeValueError("a=crypto tag must be a number of up to 9 digits")
        }
        guard Lexer.isToken(fields[1]) else { throw AttributeValueError("a=crypto suite must be a token") }
        let keys = Lexer.split(fields[2], on: 0x3B)
        guard keys.allSatisfy({ $0.hasPrefix("inline:") && $0.utf8.count > 7 }) else {
            throw AttributeValueError("a=crypto key parameters must be inline:<key>")
        }
        self.init(tag: tag, suite: fields[1], keyParameters: fields[2], sessionParameters: Array(fields.dropFirst(3)))
    }

    public var attributeValue: String? {
        ([String(tag), suite, keyParameters] + sessionParameters).joined(separator: " ")
    }

    /// The base64 key and salt of the first `inline:` key parameter.
    public var inlineKey: String? {
        guard let first = Lexer.split(keyParameters, on: 0x3B).first else { return nil }
        return Lexer.split(first.dropFirst("inline:".count), on: 0x7C).first
    }

    public var description: String { "Crypto(tag: \(tag), suite: \(suite), key: <redacted>)" }
}
