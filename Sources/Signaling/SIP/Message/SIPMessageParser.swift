extension SIPMessage {
    /// Reads one SIP message from a datagram (UDP) or from the bytes `SIPStreamFramer` cut out
    /// of a stream. On a datagram, a missing Content-Length means the body is the rest of the
    /// datagram, and bytes beyond the Content-Length are dropped (RFC 3261 §18.3).
    package static func parse(_ bytes: [UInt8], limits: SIPLimits = SIPLimits()) throws(SIPParseError) -> SIPMessage {
        guard bytes.count <= limits.maximumMessageSize else {
            throw SIPParseError(.messageTooLarge, line: 0, "\(bytes.count) bytes exceed the limit of \(limits.maximumMessageSize)")
        }
        let head = try SIPHeadParser.parse(bytes, limits: limits)
        let available = bytes.count - head.bodyStart
        let length = head.contentLength ?? available
        guard length <= available else {
            throw SIPParseError(.badContentLength, line: head.contentLengthLine,
                                "Content-Length declares \(length) bytes of body, the message has \(available)")
        }
        var message = head.message
        message.body = Array(bytes[head.bodyStart..<head.bodyStart + length])
        return message
    }
}

/// The start line and header fields of a message, read line by line with every limit checked
/// before the line is copied.
struct SIPHeadParser {
    let message: SIPMessage
    let contentLength: Int?
    let contentLengthLine: Int
    /// Where the body starts: just after the empty line.
    let bodyStart: Int

    static func parse(_ bytes: [UInt8], limits: SIPLimits) throws(SIPParseError) -> SIPHeadParser {
        var reader = LineReader(bytes: bytes, limit: limits.maximumLineLength)
        guard let first = try reader.next() else {
            throw SIPParseError(.incomplete, line: 1, "the message is empty")
        }
        let (startLine, version) = try parseStartLine(first.text, line: 1)
        var headers: [SIPHeader] = []
        var separator: [UInt8]?
        var field: (start: Int, line: Int, segments: [ArraySlice<UInt8>])?
        func finish() throws(SIPParseError) {
            guard let current = field else { return }
            headers.append(try parseField(bytes, current, limits: limits))
            field = nil
        }
        while let line = try reader.next() {
            if line.text.isEmpty {
                try finish()
                separator = Array(bytes[line.start..<line.end])
                break
            }
            if line.text.first == 0x20 || line.text.first == 0x09 {
                guard var current = field else {
                    throw SIPParseError(.badHeaderField, line: reader.lineNumber, "a continuation line with no header field before it")
                }
                current.segments.append(line.text)
                let length = line.end - current.start
                guard length <= limits.maximumLineLength else {
                    throw SIPParseError(.headerLineTooLong, line: current.line,
                                        "a header field of more than \(limits.maximumLineLength) bytes with its continuation lines")
                }
                field = current
                continue
            }
            try finish()
            guard headers.count < limits.maximumHeaderCount else {
                throw SIPParseError(.tooManyHeaders, line: reader.lineNumber, "more than \(limits.maximumHeaderCount) header fields")
            }
            field = (line.start, reader.lineNumber, [line.text])
        }
        guard let separator else {
            throw SIPParseError(.incomplete, line: reader.lineNumber, "the header fields do not end with an empty line")
        }
        var contentLength: Int?
        var contentLengthLine = 0
        for header in headers where header.name == .contentLength {
            guard contentLength == nil else {
                throw SIPParseError(.badContentLength, line: header.line, "a second Content-Length (the first is on line \(contentLengthLine))")
            }
            contentLength = try parseContentLength(header.value, line: header.line, limits: limits)
            contentLengthLine = header.line
        }
        let message = SIPMessage(startLine: startLine, version: version, headers: headers, body: [],
                                 rawStartLine: Array(bytes[first.start..<first.end]), rawSeparator: separator)
        return SIPHeadParser(message: message, contentLength: contentLength, contentLengthLine: contentLengthLine, bodyStart: reader.position)
    }

    /// RFC 3261 §7.1 and §7.2: `Method SP Request-URI SP SIP-Version` or
    /// `SIP-Version SP Status-Code SP Reason-Phrase`, each part separated by exactly one space.
    static func parseStartLine(_ bytes: ArraySlice<UInt8>, line: Int) throws(SIPParseError) -> (SIPMessage.StartLine, String) {
        let text = String(decoding: bytes, as: UTF8.self)
        if text.hasPrefix("SIP/") {
            let parts = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            let version = try checkVersion(String(parts[0]), line: line)
            guard parts.count >= 2, parts[1].utf8.count == 3, let status = Int(parts[1]), (100...699).contains(status) else {
                throw SIPParseError(.badStartLine, line: line, "a status line needs a three-digit status code from 100 to 699")
            }
            return (.response(status: status, reason: parts.count == 3 ? String(parts[2]) : ""), version)
        }
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts.contains(where: \.isEmpty) else {
            throw SIPParseError(.badStartLine, line: line,
                                "a request line is a method, a URI and the version separated by single spaces (found \(parts.count - 1) spaces)")
        }
        let method = String(parts[0])
        guard SIPValueScanner.isToken(method) else {
            throw SIPParseError(.badStartLine, line: line, "the method is not a token")
        }
        let uri = String(parts[1])
        guard SIPValueScanner.isAbsoluteURI(uri) else {
            throw SIPParseError(.badStartLine, line: line, "the Request-URI is not an absolute URI (scheme:rest, no angle brackets)")
        }
        let version = try checkVersion(String(parts[2]), line: line)
        return (.request(method: method, uri: uri), version)
    }

    private static func checkVersion(_ text: String, line: Int) throws(SIPParseError) -> String {
        let numbers = text.dropFirst(4).split(separator: ".", omittingEmptySubsequences: false)
        guard text.uppercased().hasPrefix("SIP/"), numbers.count == 2,
              numbers.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { (0x30...0x39).contains($0) } }) else {
            throw SIPParseError(.badStartLine, line: line, "the version is not SIP/digits.digits")
        }
        guard numbers[0] == "2", numbers[1] == "0" else {
            throw SIPParseError(.unsupportedVersion, line: line, "SIP version \(numbers[0]).\(numbers[1].prefix(8)) is not 2.0")
        }
        return text
    }

    /// `field-name HCOLON field-value` with its continuation lines (RFC 3261 §7.3.1).
    private static func parseField(_ bytes: [UInt8], _ field: (start: Int, line: Int, segments: [ArraySlice<UInt8>]),
                                   limits: SIPLimits) throws(SIPParseError) -> SIPHeader {
        let first = field.segments[0]
        guard let colon = first.firstIndex(of: 0x3A) else {
            throw SIPParseError(.badHeaderField, line: field.line, "a header line without a colon")
        }
        var nameEnd = colon
        while nameEnd > first.startIndex, bytes[nameEnd - 1] == 0x20 || bytes[nameEnd - 1] == 0x09 { nameEnd -= 1 }
        let name = String(decoding: first[first.startIndex..<nameEnd], as: UTF8.self)
        guard SIPValueScanner.isToken(name) else {
            throw SIPParseError(.badHeaderField, line: field.line, "the header field name is empty or not a token")
        }
        var parts = [trim(first[(colon + 1)...])]
        parts += field.segments.dropFirst().map(trim)
        let value = parts.filter { !$0.isEmpty }.map { String(decoding: $0, as: UTF8.self) }.joined(separator: " ")
        let last = field.segments[field.segments.count - 1]
        var end = last.endIndex
        while end < bytes.count, bytes[end] != 0x0A { end += 1 }
        return SIPHeader(writtenName: name, value: value, line: field.line, raw: Array(bytes[field.start..<min(end + 1, bytes.count)]))
    }

    private static func trim(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice = slice.dropLast() }
        return slice
    }

    /// `Content-Length: 1*DIGIT`, no larger than the body limit (checked before the body is read).
    static func parseContentLength(_ value: String, line: Int, limits: SIPLimits) throws(SIPParseError) -> Int {
        guard !value.isEmpty, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw SIPParseError(.badContentLength, line: line, "Content-Length is not a non-negative number")
        }
        let digits = value.drop { $0 == "0" }
        guard digits.count <= 9, let length = digits.isEmpty ? 0 : Int(digits), length <= limits.maximumBodySize else {
            throw SIPParseError(.bodyTooLarge, line: line, "Content-Length declares more than the limit of \(limits.maximumBodySize) bytes")
        }
        return length
    }
}

/// Lines of a message head: each ends with LF, a CR before it dropped (a bare LF is accepted, as
/// most stacks do). A CR elsewhere is an error: stacks disagree whether it ends a line. Other
/// control bytes are left to the grammar of the part they are in (a quoted string may escape
/// any of them, RFC 3261 §25.1).
private struct LineReader {
    let bytes: [UInt8]
    let limit: Int
    private(set) var position = 0
    private(set) var lineNumber = 0

    struct Line {
        /// The line without its end.
        let text: ArraySlice<UInt8>
        let start: Int
        /// Just after the LF.
        let end: Int
    }

    init(bytes: [UInt8], limit: Int) {
        self.bytes = bytes
        self.limit = limit
    }

    mutating func next() throws(SIPParseError) -> Line? {
        guard position < bytes.count else { return nil }
        lineNumber += 1
        let start = position
        var index = start
        while index < bytes.count, bytes[index] != 0x0A {
            if bytes[index] == 0x0D, index + 1 < bytes.count, bytes[index + 1] != 0x0A {
                throw SIPParseError(.badHeaderField, line: lineNumber, "a carriage return inside a line")
            }
            index += 1
            guard index - start <= limit else {
                throw SIPParseError(.headerLineTooLong, line: lineNumber, "a line of more than \(limit) bytes")
            }
        }
        guard index < bytes.count else {
            throw SIPParseError(.incomplete, line: lineNumber, "the line does not end")
        }
        position = index + 1
        let textEnd = index > start && bytes[index - 1] == 0x0D ? index - 1 : index
        return Line(text: bytes[start..<textEnd], start: start, end: position)
    }
}
