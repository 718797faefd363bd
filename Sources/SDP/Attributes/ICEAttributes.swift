/// `a=candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type> [...]`
/// (RFC 8839 §5.1)
public struct Candidate: TypedAttribute, Equatable {
    public static let attributeName = "candidate"
    public var foundation: String
    public var component: Int
    public var transport: String
    public var priority: UInt32
    public var address: String
    public var port: Int
    public var type: String
    public var relatedAddress: String?
    public var relatedPort: Int?
    /// Extension name/value pairs in written order (e.g. `tcptype active`, `generation 0`).
    public var extensions: [(name: String, value: String)]

    public init(
        foundation: String, component: Int, transport: String, priority: UInt32, address: String, port: Int,
        type: String, relatedAddress: String? = nil, relatedPort: Int? = nil, extensions: [(name: String, value: String)] = []
    ) {
        self.foundation = foundation
        self.component = component
        self.transport = transport
        self.priority = priority
        self.address = address
        self.port = port
        self.type = type
        self.relatedAddress = relatedAddress
        self.relatedPort = relatedPort
        self.extensions = extensions
    }

    public init(attributeValue: String?) throws(AttributeValueError) {
        let shape = "<foundation> <component> <transport> <priority> <address> <port> typ <type>"
        let fields = try Self.requireFields(attributeValue, atLeast: 8, shape)
        // RFC 8839 foundation is 1*32 ice-char (letters, digits, '+', '/'); older stacks use
        // other token characters too, and neither changes what the foundation means.
        guard fields[0].utf8.allSatisfy({ Lexer.isTokenByte($0) || $0 == 0x2F }), fields[0].utf8.count <= 32 else {
            throw AttributeValueError("a=candidate foundation must be 1 to 32 letters, digits, '+', '/' or token characters")
        }
        guard let component = Lexer.integer(fields[1], in: 1...256) else {
            throw AttributeValueError("a=candidate component must be a number from 1 to 256")
        }
        guard Lexer.isToken(fields[2]) else { throw AttributeValueError("a=candidate transport must be a token") }
        guard let priority = Lexer.uint32(fields[3]) else {
            throw AttributeValueError("a=candidate priority must be a number from 0 to 4294967295")
        }
        guard let port = Lexer.integer(fields[5], in: 0...65535) else {
            throw AttributeValueError("a=candidate port must be a number from 0 to 65535")
        }
        guard fields[6] == "typ", Lexer.isToken(fields[7]) else {
            throw AttributeValueError("a=candidate must have \"typ <type>\" after the port")
        }
        var relatedAddress: String?
        var relatedPort: Int?
        var extensions: [(name: String, value: String)] = []
        var index = 8
        while index < fields.count {
            guard index + 1 < fields.count else {
                throw AttributeValueError("a=candidate extension \"\(fields[index])\" has no value")
            }
            let name = fields[index]
            let value = fields[index + 1]
            switch name {
            case "raddr": relatedAddress = value
            case "rport":
                guard let number = Lexer.integer(value, in: 0...65535) else {
                    throw AttributeValueError("a=candidate rport must be a number from 0 to 65535")
                }
                relatedPort = number
            default: extensions.append((name, value))
            }
            index += 2
        }
        self.init(
            foundation: fields[0], component: component, transport: fields[2], priority: priority,
            address: fields[4], port: port, type: fields[7], relatedAddress: relatedAddress,
            relatedPort: relatedPort, extensions: extensions)
    }

    public var attributeValue: String? {
        var parts = [foundation, String(component), transport, String(priority), address, String(port), "typ", type]
        if let relatedAddress { parts += ["raddr", relatedAddress] }
        if let relatedPort { parts += ["rport", String(relatedPort)] }
        for (name, value) in extensions { parts += [name, value] }
        return parts.joined(separator: " ")
    }

    /// A browser's mDNS host name (`<uuid>.local`) in place of an address.
    public var isMulticastDNS: Bool { address.lowercased().hasSuffix(".local") }

    public static func == (lhs: Candidate, rhs: Candidate) -> Bool {
        lhs.attributeValue == rhs.attributeValue
    }
}

/// `a=end-of-candidates` (RFC 8840)
public struct EndOfCandidates: FlagAttribute, Equatable {
    public static let attributeName = "end-of-candidates"
    public init() {}
}

/// `a=ice-lite` (RFC 8839)
public struct ICELite: FlagAttribute, Equatable {
    public static let attributeName = "ice-lite"
    public init() {}
}

/// RFC 8839 `ice-char`: letters, digits, `+` and `/`.
private func isICEChars(_ text: String) -> Bool {
    !text.isEmpty && text.utf8.allSatisfy { byte in
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || byte == 0x2B || byte == 0x2F
    }
}

/// What libwebrtc accepts in a ufrag beyond RFC 8839's `ice-char` (it sends `ufrag_voice`):
/// any visible ASCII but `:`, which separates the two ufrags of a STUN USERNAME.
private func isLenientICEChars(_ text: String) -> Bool {
    !text.isEmpty && text.utf8.allSatisfy { byte in byte > 0x20 && byte < 0x7F && byte != 0x3A }
}

/// `a=ice-ufrag:<ufrag>` (RFC 8839 §5.4). Accepts other visible characters than `ice-char`, as
/// libwebrtc does; the parser warns about them (`isStrict`).
public struct ICEUsernameFragment: TypedAttribute, Equatable {
    public static let attributeName = "ice-ufrag"
    public var ufrag: String

    public init(_ ufrag: String) { self.ufrag = ufrag }

    public init(attributeValue: String?) throws(AttributeValueError) {
        let text = try Self.requireValue(attributeValue)
        guard isLenientICEChars(text), text.utf8.count <= 256 else {
            throw AttributeValueError("a=ice-ufrag must be up to 256 letters, digits, + or / (other visible characters but : are tolerated)")
        }
        ufrag = text
    }

    /// Only RFC 8839 `ice-char`s: letters, digits, `+` and `/`.
    public static func isStrict(_ ufrag: String) -> Bool { isICEChars(ufrag) }

    public var attributeValue: String? { ufrag }
}

/// `a=ice-pwd:<password>` (RFC 8839 §5.4). A secret: never logged, never quoted in errors.
/// Accepts the same characters as the ufrag: libwebrtc's own SDPs send `pwd_voice`; the parser
/// warns about them (`isStrict`).
public struct ICEPassword: TypedAttribute, Equatable, CustomStringConvertible {
    public static let attributeName = "ice-pwd"
    public var password: String

    public init(_ password: String) { self.password = password }

    public init(attributeValue: String?) throws(AttributeValueError) {
        let text = try Self.requireValue(attributeValue)
        guard isLenientICEChars(text), text.utf8.count <= 256 else {
            throw AttributeValueError("a=ice-pwd must be up to 256 letters, digits, + or / (other visible characters but : are tolerated)")
        }
        password = text
    }

    /// Only RFC 8839 `ice-char`s: letters, digits, `+` and `/`.
    public static func isStrict(_ password: String) -> Bool { isICEChars(password) }

    public var attributeValue: String? { password }
    public var description: String { "ICEPassword(<redacted>)" }
}

/// `a=ice-options:<option> ...` (RFC 8839 §5.6)
public struct ICEOptions: TypedAttribute, Equatable {
    public static let attributeName = "ice-options"
    public var options: [String]

    public init(_ options: [String]) { self.options = options }

    public init(attributeValue: String?) throws(AttributeValueError) {
        let fields = try Self.requireFields(attributeValue, atLeast: 1, "<option> ...")
        guard fields.allSatisfy({ Lexer.isToken($0) }) else { throw AttributeValueError("a=ice-options must be tokens") }
        options = fields
    }

    public var attributeValue: String? { options.joined(separator: " ") }
}
