/// Parses SDP text strictly: RFC 8866 line order and grammar, known attributes checked, limits
/// enforced. What it accepts it keeps exactly, so `SDPSerializer` gives back the same bytes.
public struct SDPParser: Sendable {
    public var limits: SDPLimits

    public init(limits: SDPLimits = .default) {
        self.limits = limits
    }

    public func parse(_ text: String) throws(SDPParseError) -> SessionDescription {
        try parse(bytes: Array(text.utf8))
    }

    public func parse(bytes: [UInt8]) throws(SDPParseError) -> SessionDescription {
        guard bytes.count <= limits.maxDocumentBytes else {
            throw SDPParseError(line: 0, kind: .documentTooLarge, reason: "document is \(bytes.count) bytes; the limit is \(limits.maxDocumentBytes)")
        }
        guard !bytes.isEmpty else {
            throw SDPParseError(line: 1, kind: .emptyDocument, reason: "document is empty")
        }
        let split = try LineSplitter.split(bytes, maxLineBytes: limits.maxLineBytes)
        var builder = DocumentBuilder(limits: limits, lineEnding: split.lineEnding, endsWithLineEnding: split.endsWithLineEnding)
        for (offset, line) in split.lines.enumerated() {
            try builder.add(line, number: offset + 1)
        }
        return try builder.finish(lineCount: split.lines.count)
    }
}

/// Cuts the document into lines, checking bytes and endings as it goes.
enum LineSplitter {
    struct Result {
        var lines: [String]
        var lineEnding: LineEnding
        var endsWithLineEnding: Bool
    }

    static func split(_ bytes: [UInt8], maxLineBytes: Int) throws(SDPParseError) -> Result {
        var lines: [String] = []
        var ending: LineEnding?
        var start = 0
        var endsWithLineEnding = false
        while start < bytes.count {
            let number = lines.count + 1
            var end = start
            while end < bytes.count && bytes[end] != 0x0A { end += 1 }
            let hasNewline = end < bytes.count
            var contentEnd = end
            var thisEnding: LineEnding?
            if hasNewline {
                if contentEnd > start && bytes[contentEnd - 1] == 0x0D {
                    contentEnd -= 1
                    thisEnding = .crlf
                } else {
                    thisEnding = .lf
                }
            }
            let content = bytes[start..<contentEnd]
            guard content.count <= maxLineBytes else {
                throw SDPParseError(line: number, kind: .lineTooLong, reason: "line is \(content.count) bytes; the limit is \(maxLineBytes)")
            }
            if let index = content.firstIndex(where: { $0 == 0x00 || $0 == 0x0D }) {
                let what = content[index] == 0 ? "a NUL byte" : "a carriage return not followed by a line feed"
                throw SDPParseError(line: number, kind: .forbiddenCharacter, reason: "line holds \(what)")
            }
            if let thisEnding {
                if let ending, ending != thisEnding {
                    throw SDPParseError(
                        line: number, kind: .mixedLineEndings,
                        reason: "line ends with \(thisEnding == .crlf ? "CRLF" : "LF") but earlier lines end with \(ending == .crlf ? "CRLF" : "LF")")
                }
                ending = thisEnding
            }
            guard let line = String(validating: content, as: UTF8.self) else {
                throw SDPParseError(line: number, kind: .invalidUTF8, reason: "line is not valid UTF-8")
            }
            lines.append(line)
            start = end + 1
            endsWithLineEnding = hasNewline
        }
        return Result(lines: lines, lineEnding: ending ?? .crlf, endsWithLineEnding: endsWithLineEnding)
    }
}
