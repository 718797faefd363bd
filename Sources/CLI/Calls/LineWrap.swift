/// A line for a terminal broken at spaces to its width, as a pager would: a terminal left to
/// wrap it cuts words in two (the end-of-call summary at 80 or 60 columns).
enum LineWrap {
    /// `text` in lines of at most `width - 1` columns (the last column would leave the cursor
    /// waiting to wrap), each after the first indented two more than the text's own indent, so
    /// they read as one. A word longer than a whole line is cut.
    static func lines(_ text: String, width: Int) -> [String] {
        let room = max(8, width - 1)
        guard text.count > room else { return [text] }
        let indent = String(text.prefix { $0 == " " })
        let continuation = String(repeating: " ", count: min(indent.count + 2, room / 2))
        var lines: [String] = []
        var current = indent
        var currentHasWord = false
        for word in text.dropFirst(indent.count).split(separator: " ", omittingEmptySubsequences: true) {
            var word = Substring(word)
            if currentHasWord, current.count + 1 + word.count > room {
                lines.append(current)
                (current, currentHasWord) = (continuation, false)
            }
            if currentHasWord { current += " " }
            // A word too long for any line fills this one and goes on on the next.
            while current.count + word.count > room {
                let fits = room - current.count
                current += word.prefix(fits)
                word = word.dropFirst(fits)
                lines.append(current)
                current = continuation
            }
            current += word
            currentHasWord = true
        }
        if currentHasWord || lines.isEmpty { lines.append(current) }
        return lines
    }
}
