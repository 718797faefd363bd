/// A syntax problem found while reading a script, before the file name is known.
struct ScriptSyntaxError: Error {
    var kind: BotScriptError.Kind = .syntax
    var line: Int?
    var message: String
}

/// Reads the YAML subset bot scripts use: block mappings and block sequences (including the
/// `- key: value` compact form), plain scalars, single- and double-quoted scalars on one line,
/// `#` comments and an optional leading `---`. Anything else (flow `{}`/`[]` collections, block
/// scalars `|`/`>`, anchors, aliases, tags, multi-line scalars, tabs in indentation) is an
/// error naming the line, never a guess.
struct YAMLSubsetParser {
    private struct Line {
        var number: Int
        var indent: Int
        /// The line without its indentation; comments are still in it.
        var text: Substring
    }

    private var lines: [Line] = []
    private var index = 0

    static func parse(_ text: String) throws(ScriptSyntaxError) -> ScriptNode {
        var parser = YAMLSubsetParser()
        try parser.split(text)
        guard let first = parser.lines.first else { return .null(line: nil) }
        let root = try parser.parseBlock(indent: first.indent)
        if parser.index < parser.lines.count {
            throw parser.badIndentation(parser.lines[parser.index])
        }
        return root
    }

    private mutating func split(_ text: String) throws(ScriptSyntaxError) {
        var body = Substring(text)
        if body.first == "\u{FEFF}" { body = body.dropFirst() }
        var sawContent = false
        for (offset, raw) in body.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            let number = offset + 1
            var line = raw
            if line.last == "\r" { line = line.dropLast() }
            let indentation = line.prefix { $0 == " " || $0 == "\t" }
            let content = line.dropFirst(indentation.count)
            if content.isEmpty || content.first == "#" { continue }
            if indentation.contains("\t") {
                throw ScriptSyntaxError(line: number, message: "a tab in the indentation; indent with spaces")
            }
            if content.first == "%" {
                throw ScriptSyntaxError(line: number, message: "YAML directives (%) are outside the supported subset")
            }
            if Self.isDocumentMarker(content, "---") {
                guard !sawContent else {
                    throw ScriptSyntaxError(line: number, message: "a second document (---); a script is one document")
                }
                continue
            }
            if Self.isDocumentMarker(content, "...") {
                throw ScriptSyntaxError(line: number, message: "a document end marker (...) is outside the supported subset")
            }
            sawContent = true
            lines.append(Line(number: number, indent: indentation.count, text: content))
        }
    }

    private static func isDocumentMarker(_ content: Substring, _ marker: String) -> Bool {
        guard content.hasPrefix(marker) else { return false }
        let rest = content.dropFirst(3)
        return rest.isEmpty || rest.first == " " || rest.first == "#"
    }

    // MARK: Blocks

    private mutating func parseBlock(indent: Int) throws(ScriptSyntaxError) -> ScriptNode {
        let line = lines[index]
        if Self.isSequenceItem(line.text) { return try parseSequence(indent: indent) }
        if try Self.splitKey(line) != nil { return try parseMapping(indent: indent) }
        index += 1
        let value = try Self.scalar(line.text, line: line.number)
        try rejectDeeperLine(than: indent)
        return value
    }

    private mutating func parseSequence(indent: Int) throws(ScriptSyntaxError) -> ScriptNode {
        let startLine = lines[index].number
        var items: [ScriptNode] = []
        while index < lines.count, lines[index].indent == indent, Self.isSequenceItem(lines[index].text) {
            let line = lines[index]
            let afterDash = line.text.dropFirst()
            let rest = afterDash.drop { $0 == " " }
            if rest.isEmpty || rest.first == "#" {
                index += 1
                if index < lines.count, lines[index].indent > indent {
                    items.append(try parseBlock(indent: lines[index].indent))
                } else {
                    items.append(.null(line: line.number))
                }
            } else {
                // `- key: value` opens a mapping whose keys line up with `key`.
                let column = indent + 1 + (afterDash.count - rest.count)
                lines[index] = Line(number: line.number, indent: column, text: rest)
                items.append(try parseBlock(indent: column))
            }
            try rejectDeeperLine(than: indent)
        }
        return .sequence(items, line: startLine)
    }

    private mutating func parseMapping(indent: Int) throws(ScriptSyntaxError) -> ScriptNode {
        let startLine = lines[index].number
        var entries: [ScriptNode.Entry] = []
        while index < lines.count, lines[index].indent == indent {
            let line = lines[index]
            if Self.isSequenceItem(line.text) {
                throw ScriptSyntaxError(line: line.number, message: "a list item where a `key: value` line was expected")
            }
            guard let (key, rest) = try Self.splitKey(line) else {
                throw ScriptSyntaxError(line: line.number, message: "expected `key: value`, found \"\(line.text)\"")
            }
            if entries.contains(where: { $0.key == key }) {
                throw ScriptSyntaxError(kind: .duplicateKey, line: line.number, message: "the key \"\(key)\" appears twice in one mapping")
            }
            index += 1
            let value: ScriptNode
            if !(rest.isEmpty || rest.first == "#") {
                value = try Self.scalar(rest, line: line.number)
            } else if index < lines.count, lines[index].indent > indent {
                value = try parseBlock(indent: lines[index].indent)
            } else if index < lines.count, lines[index].indent == indent, Self.isSequenceItem(lines[index].text) {
                value = try parseSequence(indent: indent)
            } else {
                value = .null(line: line.number)
            }
            entries.append(ScriptNode.Entry(key: key, line: line.number, value: value))
            try rejectDeeperLine(than: indent)
        }
        return .mapping(entries, line: startLine)
    }

    /// After a value ends, the next line must go back to this level or out of it.
    private func rejectDeeperLine(than indent: Int) throws(ScriptSyntaxError) {
        if index < lines.count, lines[index].indent > indent { throw badIndentation(lines[index]) }
    }

    private func badIndentation(_ line: Line) -> ScriptSyntaxError {
        ScriptSyntaxError(line: line.number, message: "bad indentation: this line (\(line.indent) spaces) lines up with no key or list item above it")
    }

    private static func isSequenceItem(_ text: Substring) -> Bool {
        text == "-" || text.hasPrefix("- ")
    }

    // MARK: Keys and scalars

    /// `key: rest` → (key, rest), nil when the line holds no key.
    private static func splitKey(_ line: Line) throws(ScriptSyntaxError) -> (String, Substring)? {
        let text = line.text
        if text.first == "\"" || text.first == "'" {
            let (key, after) = try quoted(text, line: line.number)
            let rest = after.drop { $0 == " " }
            guard rest.first == ":" else { return nil }
            let value = rest.dropFirst()
            guard value.isEmpty || value.first == " " else { return nil }
            return (key, value.drop { $0 == " " })
        }
        var position = text.startIndex
        while let colon = text[position...].firstIndex(of: ":") {
            let next = text.index(after: colon)
            if next == text.endIndex || text[next] == " " {
                let key = String(text[..<colon]).trimmingTrailingSpaces()
                if text[..<colon].contains(" #") { return nil }
                guard !key.isEmpty else { throw ScriptSyntaxError(line: line.number, message: "an empty key") }
                try rejectIndicator(Substring(key), line: line.number)
                return (key, text[next...].drop { $0 == " " })
            }
            position = next
        }
        return nil
    }

    static func scalar(_ text: Substring, line: Int) throws(ScriptSyntaxError) -> ScriptNode {
        if text.first == "\"" || text.first == "'" {
            let (value, after) = try quoted(text, line: line)
            let rest = after.drop { $0 == " " }
            guard rest.isEmpty || rest.first == "#" else {
                throw ScriptSyntaxError(line: line, message: "text after a closing quote: \"\(rest)\"")
            }
            return .scalar(value, line: line)
        }
        try rejectIndicator(text, line: line)
        var plain = text
        // A comment starts at a # after a space or tab; a # inside a word (a#b) is text.
        var previous: Character = " "
        for position in plain.indices {
            if plain[position] == "#", previous == " " || previous == "\t" {
                plain = plain[..<position]
                break
            }
            previous = plain[position]
        }
        let value = String(plain).trimmingTrailingSpaces()
        if value.contains(": ") || value.hasSuffix(":") {
            throw ScriptSyntaxError(line: line, message: "a `key: value` inside a value; quote the value or put the mapping on its own lines")
        }
        if value == "-" || value.hasPrefix("- ") {
            throw ScriptSyntaxError(line: line, message: "a list must start on the line after its key")
        }
        if value == "~" || value == "null" { return .null(line: line) }
        return .scalar(value, line: line)
    }

    private static func rejectIndicator(_ text: Substring, line: Int) throws(ScriptSyntaxError) {
        guard let first = text.first else { return }
        if first == "?", text.count == 1 || text.dropFirst().first == " " {
            throw ScriptSyntaxError(line: line, message: "complex keys (?) are outside the supported YAML subset")
        }
        let message: String? = switch first {
        case "{", "[": "flow collections ({...} and [...]) are outside the supported YAML subset; use block style, one item per line"
        case "|", ">": "block scalars (| and >) are outside the supported YAML subset; keep the value on one line"
        case "&", "*": "anchors and aliases (& and *) are outside the supported YAML subset; quote a value that starts with \(first)"
        case "!": "tags (!) are outside the supported YAML subset"
        case "@", "`": "\(first) is reserved in YAML; quote the value"
        default: nil
        }
        if let message { throw ScriptSyntaxError(line: line, message: message) }
    }

    /// A single- or double-quoted scalar at the start of `text`, and what follows it.
    private static func quoted(_ text: Substring, line: Int) throws(ScriptSyntaxError) -> (String, Substring) {
        let quote = text.first!
        var value = ""
        var position = text.index(after: text.startIndex)
        while position < text.endIndex {
            let character = text[position]
            position = text.index(after: position)
            if character == quote {
                // '' inside single quotes is one quote.
                if quote == "'", position < text.endIndex, text[position] == "'" {
                    value.append("'")
                    position = text.index(after: position)
                    continue
                }
                return (value, text[position...])
            }
            if quote == "\"", character == "\\" {
                guard position < text.endIndex else { break }
                let escape = text[position]
                position = text.index(after: position)
                switch escape {
                case "\\", "\"", "/": value.append(escape)
                case "n": value.append("\n")
                case "t": value.append("\t")
                case "r": value.append("\r")
                case "0": value.append("\0")
                case "u", "x":
                    let width = escape == "u" ? 4 : 2
                    let digits = text[position...].prefix(width)
                    guard digits.count == width, let code = UInt32(digits, radix: 16), let scalar = Unicode.Scalar(code) else {
                        throw ScriptSyntaxError(line: line, message: "a bad \\\(escape) escape in a double-quoted string")
                    }
                    value.unicodeScalars.append(scalar)
                    position = text.index(position, offsetBy: width)
                default:
                    throw ScriptSyntaxError(line: line, message: "an unknown escape \\\(escape) in a double-quoted string")
                }
                continue
            }
            value.append(character)
        }
        throw ScriptSyntaxError(line: line, message: "a quoted string that does not end on its line; close it with \(quote)")
    }
}

fileprivate extension String {
    func trimmingTrailingSpaces() -> String {
        var copy = self
        while let last = copy.last, last == " " || last == "\t" { copy.removeLast() }
        return copy
    }
}
