/// `a=rtcp:<port> [<nettype> <addrtype> <address>]` (RFC 3605)
public struct RTCPAddress: TypedAttribute, Equatable {
    public static let attributeName = "rtcp"
    public var port: Int
    public var connection: Connection?

    public init(port: Int, connection: Connection? = nil) {
        self.port = port
        self.connection = connection
    }

    public init(attributeValue: String?) throws(AttributeValueError) {
        let fields = try Self.requireFields(attributeValue, atLeast: 1, "<port> [IN IP4 <address>]")
        guard let port = Lexer.integer(fields[0], in: 0...65535) else {
            throw AttributeValueError("a=rtcp port must be a number from 0 to 65535")
        }
        switch fields.count {
        case 1: self.init(port: port)
        case 4: self.init(port: port, connection: Connection(networkType: fields[1], addressType: fields[2], address: fields[3]))
        default: throw AttributeValueError("a=rtcp must be \"<port>\" or \"<port> <nettype> <addrtype> <address>\"")
        }
    }

    public var attributeValue: String? {
        guard let connection else { return String(port) }
        return ([String(port)] + connection.fields).joined(separator: " ")
    }
}

/// `a=rtcp-mux` (RFC 5761)
public struct RTCPMux: FlagAttribute, Equatable {
    public static let attributeName = "rtcp-mux"
    public init() {}
}

/// `a=rtcp-rsize` (RFC 5506)
public struct RTCPReducedSize: FlagAttribute, Equatable {
    public static let attributeName = "rtcp-rsize"
    public init() {}
}

/// The media direction flags of RFC 8866 §6.7 (`a=sendrecv` and friends).
public enum Direction: String, Sendable, Equatable, CaseIterable, Codable {
    case sendrecv, sendonly, recvonly, inactive

    /// What the answerer says when the offerer says `self` and the answerer would like `local`
    /// (RFC 3264 §6.1): the offer's direction seen from the other side, narrowed by ours.
    public func answer(wanting local: Direction) -> Direction {
        let canSend = receives && local.sends
        let canReceive = sends && local.receives
        switch (canSend, canReceive) {
        case (true, true): return .sendrecv
        case (true, false): return .sendonly
        case (false, true): return .recvonly
        case (false, false): return .inactive
        }
    }

    public var sends: Bool { self == .sendrecv || self == .sendonly }
    public var receives: Bool { self == .sendrecv || self == .recvonly }

    static func isDirection(_ name: String) -> Bool { Direction(rawValue: name) != nil }
}

extension Array where Element == Attribute {
    /// The direction flag in this list, if any.
    public var direction: Direction? {
        for attribute in self {
            if let direction = Direction(rawValue: attribute.name) { return direction }
        }
        return nil
    }
}
