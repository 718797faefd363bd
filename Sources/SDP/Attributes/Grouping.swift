/// `a=mid:<identification-tag>` (RFC 5888)
public struct MediaID: TypedAttribute, Equatable {
    public static let attributeName = "mid"
    public var tag: String

    public init(_ tag: String) { self.tag = tag }

    public init(attributeValue: String?) throws(AttributeValueError) {
        let text = try Self.requireValue(attributeValue)
        guard Lexer.isToken(text) else { throw AttributeValueError("a=mid must be a single token") }
        tag = text
    }

    public var attributeValue: String? { tag }
}

/// `a=group:<semantics> <mid> ...` (RFC 5888, BUNDLE per RFC 9143)
public struct Group: TypedAttribute, Equatable {
    public static let attributeName = "group"
    public var semantics: String
    public var mids: [String]

    public init(semantics: String, mids: [String]) {
        self.semantics = semantics
        self.mids = mids
    }

    public init(attributeValue: String?) throws(AttributeValueError) {
        let fields = try Self.requireFields(attributeValue, atLeast: 1, "<semantics> <mid> ...")
        guard fields.allSatisfy({ Lexer.isToken($0) }) else {
            throw AttributeValueError("a=group semantics and mids must be tokens")
        }
        semantics = fields[0]
        mids = Array(fields.dropFirst())
    }

    public var attributeValue: String? { ([semantics] + mids).joined(separator: " ") }

    public var isBundle: Bool { semantics == "BUNDLE" }
}

/// `a=msid:<stream id> [<track id>]` (RFC 8830)
public struct MediaStreamID: TypedAttribute, Equatable {
    public static let attributeName = "msid"
    public var streamID: String
    public var trackID: String?

    public init(streamID: String, trackID: String? = nil) {
        self.streamID = streamID
        self.trackID = trackID
    }

    public init(attributeValue: String?) throws(AttributeValueError) {
        let fields = try Self.requireFields(attributeValue, atLeast: 1, "<stream id> [<track id>]")
        guard fields.count <= 2 else { throw AttributeValueError("a=msid has at most a stream id and a track id") }
        streamID = fields[0]
        trackID = fields.count == 2 ? fields[1] : nil
    }

    public var attributeValue: String? { trackID.map { "\(streamID) \($0)" } ?? streamID }
}

/// `a=ssrc:<ssrc> <attribute>[:<value>]` (RFC 5576)
public struct SSRCAttribute: TypedAttribute, Equatable {
    public static let attributeName = "ssrc"
    public var ssrc: UInt32
    public var name: String
    public var value: String?

    public init(ssrc: UInt32, name: String, value: String?) {
        self.ssrc = ssrc
        self.name = name
        self.value = value
    }

    public init(attributeValue: String?) throws(AttributeValueError) {
        let text = try Self.requireValue(attributeValue)
        let (number, rest) = Lexer.splitFirst(text, at: Lexer.space)
        guard let ssrc = Lexer.uint32(number) else {
            throw AttributeValueError("a=ssrc must start with an SSRC from 0 to 4294967295")
        }
        guard let rest, !rest.isEmpty else {
            throw AttributeValueError("a=ssrc must be \"<ssrc> <attribute>[:<value>]\"")
        }
        let (name, value) = Lexer.splitFirst(rest, at: 0x3A)
        guard Lexer.isToken(name) else { throw AttributeValueError("a=ssrc attribute name must be a token") }
        self.init(ssrc: ssrc, name: name, value: value)
    }

    public var attributeValue: String? {
        let head = "\(ssrc) \(name)"
        return value.map { head + ":" + $0 } ?? head
    }
}

/// `a=ssrc-group:<semantics> <ssrc> ...` (RFC 5576)
public struct SSRCGroup: TypedAttribute, Equatable {
    public static let attributeName = "ssrc-group"
    public var semantics: String
    public var ssrcs: [UInt32]

    public init(semantics: String, ssrcs: [UInt32]) {
        self.semantics = semantics
        self.ssrcs = ssrcs
    }

    public init(attributeValue: String?) throws(AttributeValueError) {
        let fields = try Self.requireFields(attributeValue, atLeast: 1, "<semantics> <ssrc> ...")
        guard Lexer.isToken(fields[0]) else { throw AttributeValueError("a=ssrc-group semantics must be a token") }
        var ssrcs: [UInt32] = []
        for field in fields.dropFirst() {
            guard let ssrc = Lexer.uint32(field) else {
                throw AttributeValueError("a=ssrc-group SSRCs must be numbers from 0 to 4294967295")
            }
            ssrcs.append(ssrc)
        }
        self.init(semantics: fields[0], ssrcs: ssrcs)
    }

    public var attributeValue: String? { ([semantics] + ssrcs.map(String.init)).joined(separator: " ") }
}

/// `a=extmap:<id>[/<direction>] <uri> [<attributes>]` (RFC 8285)
public struct ExtensionMap: TypedAttribute, Equatable {
    public static let attributeName = "extmap"
    public var id: Int
    public var direction: String?
    public var uri: String
    public var extensionAttributes: String?

    public init(id: Int, direction: String? = nil, uri: String, extensionAttributes: String? = nil) {
        self.id = id
        self.direction = direction
        self.uri = uri
        self.extensionAttributes = extensionAttributes
    }

    public init(attributeValue: String?) throws(AttributeValueError) {
        let text = try Self.requireValue(attributeValue)
        let (head, rest) = Lexer.splitFirst(text, at: Lexer.space)
        let (idText, direction) = Lexer.splitFirst(head, at: 0x2F)
        // 1-14 for one-byte headers, up to 255 for two-byte headers; 4096-4351 for negotiation.
        guard let id = Lexer.integer(idText, in: 1...4351), id <= 255 || id >= 4096 else {
            throw AttributeValueError("a=extmap id must be 1-255 (or 4096-4351)")
        }
        if let direction, Direction(rawValue: direction) == nil {
            throw AttributeValueError("a=extmap direction must be sendrecv, sendonly, recvonly or inactive")
        }
        guard let rest, !rest.isEmpty else { throw AttributeValueError("a=extmap must be \"<id>[/<direction>] <uri>\"") }
        let (uri, attributes) = Lexer.splitFirst(rest, at: Lexer.space)
        guard !uri.isEmpty else { throw AttributeValueError("a=extmap needs a URI after the id") }
        self.init(id: id, direction: direction, uri: uri, extensionAttributes: attributes)
    }

    public var attributeValue: String? {
        var text = String(id)
        if let direction { text += "/" + direction }
        text += " " + uri
        if let extensionAttributes { text += " " + extensionAttributes }
        return text
    }
}
