/// Assembles a `SessionDescription` line by line, enforcing RFC 8866 grammar. Line order is
/// checked where it carries meaning (`v o s` first, `r=` after its `t=`, no line above `m=` after
/// it); elsewhere a line out of RFC order is kept where it was written, with a warning.
struct DocumentBuilder {
    private let limits: SDPLimits
    private let lineEnding: LineEnding
    private let endsWithLineEnding: Bool

    private var version: String?
    private var origin: Origin?
    private var sessionName: String?
    private var information: String?
    private var uri: String?
    private var emails: [String] = []
    private var phones: [String] = []
    private var connection: Connection?
    private var bandwidths: [Bandwidth] = []
    private var timing: [Timing] = []
    private var timeZones: String?
    private var encryptionKey: String?
    private var attributes: [Attribute] = []
    private var media: [MediaDescription] = []
    private var sessionLineOrder: [UInt8]?

    /// Highest rank seen so far in the current part (session, or the current m= section).
    private var rank = -1
    /// Rank of the line just before, to tie an `r=` to its `t=`.
    private var previousRank = -1
    /// The line type that holds `rank`, to name it in a warning.
    private var highestType: UInt8 = 0
    private var seenTypes: Set<UInt8> = []
    /// Line types of the current part in written order, and whether that order is not RFC 8866's.
    private var partOrder: [UInt8] = []
    private var partOutOfOrder = false
    private var attributeCount = 0
    private(set) var warnings: [SDPParseWarning] = []

    private static let sessionRanks: [UInt8: Int] = [
        v: 0, o: 1, s: 2, i: 3, u: 4, e: 5, p: 6, c: 7, b: 8, t: 9, r: 10, z: 11, k: 12, a: 13,
    ]
    private static let mediaRanks: [UInt8: Int] = [i: 1, c: 2, b: 3, k: 4, a: 5]
    private static let sessionRepeatable: Set<UInt8> = [e, p, b, t, r, a]
    private static let mediaRepeatable: Set<UInt8> = [c, b, a]

    init(limits: SDPLimits, lineEnding: LineEnding, endsWithLineEnding: Bool) {
        self.limits = limits
        self.lineEnding = lineEnding
        self.endsWithLineEnding = endsWithLineEnding
    }

    mutating func add(_ line: String, number: Int) throws(SDPParseError) {
        let bytes = Array(line.utf8)
        guard let type = bytes.first else {
            throw SDPParseError(line: number, kind: .emptyLine, reason: "empty line; every line must be <type>=<value>")
        }
        guard bytes.count >= 2, bytes[1] == 0x3D else {
            throw SDPParseError(line: number, kind: .malformedLine, reason: "line must start with a one-letter type and '=' (e.g. \"a=\"), with no space before '='")
        }
        guard type >= 0x61 && type <= 0x7A else {
            let shown = (0x21...0x7E).contains(type) ? "'\(Character(Unicode.Scalar(type)))'" : "byte \(type)"
            throw SDPParseError(line: number, kind: .unknownLineType, reason: "line type \(shown) is not a lowercase letter")
        }
        let value = String(decoding: bytes[2...], as: UTF8.self)
        if type == DocumentBuilder.m || !media.isEmpty {
            try addMediaLine(type: type, value: value, number: number)
        } else {
            try addSessionLine(type: type, value: value, number: number)
        }
    }

    /// Ends the current part (session, or an m= section), keeping its written order if that
    /// order is not RFC 8866's.
    private mutating func closePart() {
        if partOutOfOrder {
            if media.isEmpty {
                sessionLineOrder = partOrder
            } else {
                media[media.count - 1].lineOrder = partOrder
            }
        }
        partOrder = []
        partOutOfOrder = false
        seenTypes = []
    }

    mutating func finish(lineCount: Int) throws(SDPParseError) -> SessionDescription {
        closePart()
        let end = max(lineCount, 1)
        guard let version else { throw missing("v=", line: 1) }
        guard let origin else { throw missing("o=", line: end) }
        guard let sessionName else { throw missing("s=", line: end) }
        guard !timing.isEmpty else { throw missing("t=", line: end) }
        var description = SessionDescription(
            version: version, origin: origin, sessionName: sessionName, information: information, uri: uri,
            emails: emails, phones: phones, connection: connection, bandwidths: bandwidths, timing: timing,
            timeZones: timeZones, encryptionKey: encryptionKey, attributes: attributes, media: media,
            lineEnding: lineEnding, endsWithLineEnding: endsWithLineEnding)
        description.sessionLineOrder = sessionLineOrder
        return description
    }

    // MARK: - Session part

    private mutating func addSessionLine(type: UInt8, value: String, number: Int) throws(SDPParseError) {
        guard let lineRank = Self.sessionRanks[type] else { throw unknownType(type, number: number) }
        if number == 1 && type != Self.v {
            throw SDPParseError(line: 1, kind: .missingLine, reason: "first line must be v=0")
        }
        try checkOrder(type: type, lineRank: lineRank, number: number, repeatable: Self.sessionRepeatable, part: "v o s i u e p c b t r z k a")
        try checkRequired(beforeRank: lineRank, number: number)

        switch type {
        case Self.v:
            guard value == "0" else { throw SDPParseError(line: number, kind: .invalidVersion, reason: "v= must be 0") }
            version = value
        case Self.o: origin = try parseOrigin(value, number: number)
        case Self.s:
            // RFC 8866 asks for "s= " when there is no name, but an empty s= is common (RFC 4317's
            // own examples print that way) and harmless.
            sessionName = value
        case Self.i: information = value
        case Self.u: uri = try nonEmpty(value, "u=", number: number)
        case Self.e: emails.append(try nonEmpty(value, "e=", number: number))
        case Self.p: phones.append(try nonEmpty(value, "p=", number: number))
        case Self.c: connection = try parseConnection(value, number: number)
        case Self.b: bandwidths.append(try parseBandwidth(value, number: number))
        case Self.t: timing.append(try parseTiming(value, number: number))
        case Self.r:
            try checkRepeat(value, number: number)
            timing[timing.count - 1].repeats.append(value)
        case Self.z:
            try checkTimeZones(value, number: number)
            timeZones = value
        case Self.k: encryptionKey = try nonEmpty(value, "k=", number: number)
        default: attributes.append(try parseAttribute(value, number: number))
        }
    }

    private mutating func checkOrder(type: UInt8, lineRank: Int, number: Int, repeatable: Set<UInt8>, part: String) throws(SDPParseError) {
        let name = "'\(Character(Unicode.Scalar(type)))='"
        if seenTypes.contains(type) && !repeatable.contains(type) {
            throw SDPParseError(line: number, kind: .duplicateLine, reason: "\(name) may appear only once here")
        }
        if type == Self.r && previousRank != Self.sessionRanks[Self.t]! && previousRank != Self.sessionRanks[Self.r]! {
            throw SDPParseError(line: number, kind: .lineOutOfOrder, reason: "'r=' must follow a 't=' line")
        }
        // v, o and s open the document; anything later out of place is only reported.
        if media.isEmpty && lineRank <= 2 && lineRank < rank {
            throw SDPParseError(line: number, kind: .lineOutOfOrder, reason: "\(name) line out of order: lines go \(part)")
        }
        // A new t= may follow the r= lines of the previous one.
        let restartsTiming = type == Self.t && previousRank == Self.sessionRanks[Self.r]
        if lineRank < rank && !restartsTiming && !partOutOfOrder {
            partOutOfOrder = true
            warnings.append(SDPParseWarning(
                line: number, kind: .lineOutOfOrder,
                message: "\(name) after '\(Character(Unicode.Scalar(highestType)))=', out of RFC 8866 order (\(part)); accepted, kept as written"))
        }
        seenTypes.insert(type)
        partOrder.append(type)
        if lineRank > rank {
            rank = lineRank
            highestType = type
        }
        previousRank = lineRank
    }

    private func checkRequired(beforeRank lineRank: Int, number: Int) throws(SDPParseError) {
        if lineRank > 1 && origin == nil { throw missing("o=", line: number) }
        if lineRank > 2 && sessionName == nil { throw missing("s=", line: number) }
        if lineRank > 13 && timing.isEmpty { throw missing("t=", line: number) }
    }

    // MARK: - Media part

    private mutating func addMediaLine(type: UInt8, value: String, number: Int) throws(SDPParseError) {
        if type == Self.m {
            try checkRequired(beforeRank: 14, number: number)
            guard media.count < limits.maxMediaSections else {
                throw SDPParseError(line: number, kind: .tooManyMediaSections, reason: "more than \(limits.maxMediaSections) m= sections")
            }
            closePart()
            media.append(try parseMedia(value, number: number))
            rank = 0
            previousRank = 0
            highestType = Self.m
            return
        }
        guard let lineRank = Self.mediaRanks[type] else {
            if Self.sessionRanks[type] != nil {
                throw SDPParseError(
                    line: number, kind: .lineOutOfOrder,
                    reason: "'\(Character(Unicode.Scalar(type)))=' line is not allowed in a media section (only i c b k a)")
            }
            throw unknownType(type, number: number)
        }
        try checkOrder(type: type, lineRank: lineRank, number: number, repeatable: Self.mediaRepeatable, part: "m i c b k a")
        let index = media.count - 1
        switch type {
        case Self.i: media[index].information = value
        case Self.c: media[index].connections.append(try parseConnection(value, number: number))
        case Self.b: media[index].bandwidths.append(try parseBandwidth(value, number: number))
        case Self.k: media[index].encryptionKey = try nonEmpty(value, "k=", number: number)
        default: media[index].attributes.append(try parseAttribute(value, number: number))
        }
    }

    // MARK: - Line grammars

    private func parseOrigin(_ value: String, number: Int) throws(SDPParseError) -> Origin {
        guard let fields = Lexer.fields(value), fields.count == 6 else {
            throw SDPParseError(
                line: number, kind: .invalidOrigin,
                reason: "o= must be \"<username> <session id> <version> <nettype> <addrtype> <address>\" with single spaces")
        }
        guard Lexer.isDigits(fields[1]), Lexer.isDigits(fields[2]) else {
            throw SDPParseError(line: number, kind: .invalidOrigin, reason: "o= session id and version must be digits")
        }
        guard Lexer.isToken(fields[3]), Lexer.isToken(fields[4]) else {
            throw SDPParseError(line: number, kind: .invalidOrigin, reason: "o= network and address types must be tokens")
        }
        return Origin(
            username: fields[0], sessionId: fields[1], sessionVersion: fields[2],
            networkType: fields[3], addressType: fields[4], address: fields[5])
    }

    private func parseConnection(_ value: String, number: Int) throws(SDPParseError) -> Connection {
        guard let fields = Lexer.fields(value), fields.count == 3, Lexer.isToken(fields[0]), Lexer.isToken(fields[1]) else {
            throw SDPParseError(line: number, kind: .invalidConnection, reason: "c= must be \"<nettype> <addrtype> <address>\" with single spaces")
        }
        return Connection(networkType: fields[0], addressType: fields[1], address: fields[2])
    }

    private func parseBandwidth(_ value: String, number: Int) throws(SDPParseError) -> Bandwidth {
        let (type, amount) = Lexer.splitFirst(value, at: 0x3A)
        guard Lexer.isToken(type), let amount, Lexer.isDigits(amount), amount.utf8.count <= 19 else {
            throw SDPParseError(line: number, kind: .invalidBandwidth, reason: "b= must be \"<type>:<number>\", e.g. b=AS:64")
        }
        return Bandwidth(type: type, valueText: amount)
    }

    private func parseTiming(_ value: String, number: Int) throws(SDPParseError) -> Timing {
        guard let fields = Lexer.fields(value), fields.count == 2, fields.allSatisfy({ Lexer.isDigits($0) }) else {
            throw SDPParseError(line: number, kind: .invalidTiming, reason: "t= must be \"<start> <stop>\" in decimal seconds, e.g. t=0 0")
        }
        return Timing(start: fields[0], stop: fields[1])
    }

    private func checkRepeat(_ value: String, number: Int) throws(SDPParseError) {
        guard let fields = Lexer.fields(value), fields.count >= 3, fields.allSatisfy(Self.isTypedTime) else {
            throw SDPParseError(line: number, kind: .invalidTiming, reason: "r= must be \"<interval> <duration> <offset> ...\" with times like 7d, 1h or 3600")
        }
    }

    private func checkTimeZones(_ value: String, number: Int) throws(SDPParseError) {
        guard let fields = Lexer.fields(value), fields.count % 2 == 0,
            fields.enumerated().allSatisfy({ $0.offset % 2 == 0 ? Lexer.isDigits($0.element) : Self.isTypedTime($0.element.hasPrefix("-") ? String($0.element.dropFirst()) : $0.element) })
        else {
            throw SDPParseError(line: number, kind: .invalidTiming, reason: "z= must be pairs of \"<adjustment time> <offset>\"")
        }
    }

    private static func isTypedTime(_ text: String) -> Bool {
        var digits = Substring(text)
        if let last = digits.last, "dhms".contains(last) { digits = digits.dropLast() }
        return Lexer.isDigits(digits)
    }

    private func parseMedia(_ value: String, number: Int) throws(SDPParseError) -> MediaDescription {
        guard let fields = Lexer.fields(value), fields.count >= 4 else {
            throw SDPParseError(line: number, kind: .invalidMedia, reason: "m= must be \"<media> <port> <proto> <format> ...\" with single spaces and at least one format")
        }
        guard Lexer.isToken(fields[0]) else {
            throw SDPParseError(line: number, kind: .invalidMedia, reason: "m= media type must be a token")
        }
        let (portText, countText) = Lexer.splitFirst(fields[1], at: 0x2F)
        guard Lexer.integer(portText, in: 0...65535) != nil else {
            throw SDPParseError(line: number, kind: .invalidMedia, reason: "m= port must be a number from 0 to 65535")
        }
        if let countText, Lexer.integer(countText, in: 1...65535) == nil {
            throw SDPParseError(line: number, kind: .invalidMedia, reason: "m= port count after '/' must be a positive number")
        }
        let proto = fields[2]
        guard Lexer.split(proto, on: 0x2F).allSatisfy({ Lexer.isToken($0) }) else {
            throw SDPParseError(line: number, kind: .invalidMedia, reason: "m= protocol must be tokens joined by '/', e.g. UDP/TLS/RTP/SAVPF")
        }
        let formats = Array(fields[3...])
        let section = MediaDescription(kind: fields[0], portText: portText, portCountText: countText, proto: proto, formats: formats)
        if section.isRTP {
            guard formats.allSatisfy({ Lexer.integer($0, in: 0...127) != nil }) else {
                throw SDPParseError(line: number, kind: .invalidMedia, reason: "m= formats of an RTP profile must be payload types from 0 to 127")
            }
        } else if !formats.allSatisfy({ Lexer.isToken($0) }) {
            throw SDPParseError(line: number, kind: .invalidMedia, reason: "m= formats must be tokens")
        }
        return section
    }

    private mutating func parseAttribute(_ value: String, number: Int) throws(SDPParseError) -> Attribute {
        attributeCount += 1
        guard attributeCount <= limits.maxAttributes else {
            throw SDPParseError(line: number, kind: .tooManyAttributes, reason: "more than \(limits.maxAttributes) a= lines")
        }
        let (name, attributeValue) = Lexer.splitFirst(value, at: 0x3A)
        guard Lexer.isToken(name) else {
            throw SDPParseError(line: number, kind: .invalidAttribute, reason: "a= attribute name must be a token (letters, digits, '-', ...)")
        }
        let attribute = Attribute(name, attributeValue)
        do {
            try AttributeValidation.validate(attribute)
        } catch {
            throw SDPParseError(line: number, kind: .invalidAttribute, reason: error.reason)
        }
        let isLenientICE = switch name {
        case ICEUsernameFragment.attributeName: attributeValue.map { !ICEUsernameFragment.isStrict($0) } ?? false
        case ICEPassword.attributeName: attributeValue.map { !ICEPassword.isStrict($0) } ?? false
        default: false
        }
        if isLenientICE {
            warnings.append(SDPParseWarning(
                line: number, kind: .iceCharacters,
                message: "a=\(name) has characters other than letters, digits, + and / (RFC 8839), as libwebrtc allows; accepted, kept as written"))
        }
        return attribute
    }

    private func nonEmpty(_ value: String, _ type: String, number: Int) throws(SDPParseError) -> String {
        guard !value.isEmpty else { throw SDPParseError(line: number, kind: .malformedLine, reason: "\(type) must not be empty") }
        return value
    }

    private func missing(_ type: String, line: Int) -> SDPParseError {
        SDPParseError(line: line, kind: .missingLine, reason: "required \(type) line is missing (order: v o s [i u e p c b] t [r z k a] m)")
    }

    private func unknownType(_ type: UInt8, number: Int) -> SDPParseError {
        SDPParseError(line: number, kind: .unknownLineType, reason: "unknown line type '\(Character(Unicode.Scalar(type)))='")
    }

    // Line type letters.
    static let a = UInt8(ascii: "a"), b = UInt8(ascii: "b"), c = UInt8(ascii: "c"), e = UInt8(ascii: "e")
    static let i = UInt8(ascii: "i"), k = UInt8(ascii: "k"), m = UInt8(ascii: "m"), o = UInt8(ascii: "o")
    static let p = UInt8(ascii: "p"), r = UInt8(ascii: "r"), s = UInt8(ascii: "s"), t = UInt8(ascii: "t")
    static let u = UInt8(ascii: "u"), v = UInt8(ascii: "v"), z = UInt8(ascii: "z")
}
