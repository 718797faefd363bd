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
        try parseReportingWarnings(bytes: bytes).description
    }

    /// Parses, and says what was tolerated on the way (`SDPParseWarning`).
    public func parseReportingWarnings(bytes: [UInt8]) throws(SDPParseError) -> (description: SessionDescription, warnings: [SDPParseWarning]) {
        guard bytes.count <= limits.maxDocumentBytes else {
            throw SDPParseError(line: 0, kind: .documentTooLarge, reason: "document is \(bytes.count) bytes; the limit is \(limits.maxDocumentBytes)")
        }
        guard !bytes.isEmpty else {
            throw SDPParseError(line: 1, kind: .emptyDocument, reason: "document is empty")
        }
        let split = try LineSplitter.split(bytes, maxLineBytes: limits.maxLineBytes)
        var warnings = split.warnings
        var lines = split.lines[...]
        // Empty lines at the very end carry no meaning; one in the middle still ends the parse.
        var trailingEmptyLines = 0
        while lines.count > 1, lines.last?.isEmpty == true {
            lines.removeLast()
            trailingEmptyLines += 1
        }
        if trailingEmptyLines > 0 {
            warnings.append(SDPParseWarning(
                line: lines.count + 1, kind: .trailingEmptyLines,
                message: "\(trailingEmptyLines) empty line\(trailingEmptyLines == 1 ? "" : "s") after the last line; ignored, kept as written"))
        }
        var builder = DocumentBuilder(limits: limits, lineEnding: split.lineEnding, endsWithLineEnding: split.endsWithLineEnding)
        for (offset, line) in lines.enumerated() {
            try builder.add(line, number: offset + 1)
        }
        var description = try builder.finish(lineCount: lines.count)
        description.mixedLineEndings = split.mixedLineEndings
        description.trailingEmptyLines = trailingEmptyLines
        return (description, warnings + builder.warnings)
    }
}

/// Cuts the document into lines, checking bytes and endings as it goes.
enum LineSplitter {
    struct Result {
        var lines: [String]
        /// The more common ending (CRLF on a tie): what a changed document is written with.
        var lineEnding: LineEnding
        var endsWithLineEnding: Bool
        /// Every line's ending, only when CRLF and LF are both used.
        var mixedLineEndings: [LineEnding]?
        var warnings: [SDPParseWarning]
    }

    static func split(_ bytes: [UInt8], maxLineBytes: Int) throws(SDPParseError) -> Result {
        var lines: [String] = []
        var endings: [LineEnding] = []
        var start = 0
        var endsWithLineEnding = false
        while start < bytes.count {
            let number = lines.count + 1
            var end = start
            while end < bytes.count && bytes[end] != 0x0A { end += 1 }
            let hasNewline = end < bytes.count
            var contentEnd = end
            if hasNewline {
                if contentEnd > start && bytes[contentEnd - 1] == 0x0D {
                    contentEnd -= 1
                    endings.append(.crlf)
                } else {
                    endings.append(.lf)
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
            guard let line = String(validating: content, as: UTF8.self) else {
                throw SDPParseError(line: number, kind: .invalidUTF8, reason: "line is not valid UTF-8")
            }
            lines.append(line)
            start = end + 1
            endsWithLineEnding = hasNewline
        }
        let lfCount = endings.count(where: { $0 == .lf })
        let crlfCount = endings.count - lfCount
        let dominant: LineEnding = lfCount > crlfCount ? .lf : .crlf
        guard lfCount > 0 && crlfCount > 0, let odd = endings.firstIndex(where: { $0 != dominant }) else {
            return Result(lines: lines, lineEnding: dominant, endsWithLineEnding: endsWithLineEnding, mixedLineEndings: nil, warnings: [])
        }
        let warning = SDPParseWarning(
            line: odd + 1, kind: .mixedLineEndings,
            message: "\(crlfCount) lines end with CRLF and \(lfCount) with LF; accepted, kept as written")
        return Result(lines: lines, lineEnding: dominant, endsWithLineEnding: endsWithLineEnding, mixedLineEndings: endings, warnings: [warning])
    }
}
