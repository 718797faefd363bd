import Foundation

/// A unified diff (`diff -u` format) of two texts, line by line, from the standard library's
/// `CollectionDifference`. Line endings are compared but not shown; a note says when the two
/// texts end their lines differently.
enum UnifiedDiff {
    private enum Line {
        case same(String, old: Int, new: Int)
        case removed(String, old: Int)
        case added(String, new: Int)

        var isChange: Bool {
            if case .same = self { return false }
            return true
        }
    }

    /// Empty when the texts are equal.
    static func render(old: String, new: String, oldName: String, newName: String, context: Int = 3) -> String {
        guard old != new else { return "" }
        let oldLines = lines(old), newLines = lines(new)
        let script = editScript(old: oldLines, new: newLines)
        var output = ["--- \(oldName)", "+++ \(newName)"]
        if endings(old) != endings(new) {
            output.append("# line endings: \(endings(old)) in \(oldName), \(endings(new)) in \(newName)")
        }
        var index = 0
        while let start = script[index...].firstIndex(where: \.isChange) {
            var end = start
            // A hunk runs on while the next change is within two contexts of the last.
            while let next = script[(end + 1)...].firstIndex(where: \.isChange), next - end <= 2 * context { end = next }
            let low = max(0, start - context), high = min(script.count - 1, end + context)
            output.append(header(script[low...high]))
            for line in script[low...high] {
                switch line {
                case .same(let text, _, _): output.append(" " + text)
                case .removed(let text, _): output.append("-" + text)
                case .added(let text, _): output.append("+" + text)
                }
            }
            index = high + 1
            if index >= script.count { break }
        }
        return output.joined(separator: "\n") + "\n"
    }

    private static func editScript(old: [String], new: [String]) -> [Line] {
        let difference = new.difference(from: old)
        var removed = Set<Int>(), inserted = Set<Int>()
        for change in difference {
            switch change {
            case .remove(let offset, _, _): removed.insert(offset)
            case .insert(let offset, _, _): inserted.insert(offset)
            }
        }
        var script: [Line] = []
        var i = 0, j = 0
        while i < old.count || j < new.count {
            if i < old.count, removed.contains(i) {
                script.append(.removed(display(old[i]), old: i))
                i += 1
            } else if j < new.count, inserted.contains(j) {
                script.append(.added(display(new[j]), new: j))
                j += 1
            } else {
                script.append(.same(display(old[i]), old: i, new: j))
                i += 1
                j += 1
            }
        }
        return script
    }

    private static func header(_ lines: ArraySlice<Line>) -> String {
        var oldStart: Int?, newStart: Int?, oldCount = 0, newCount = 0
        for line in lines {
            switch line {
            case .same(_, let old, let new):
                oldStart = oldStart ?? old
                newStart = newStart ?? new
                oldCount += 1
                newCount += 1
            case .removed(_, let old):
                oldStart = oldStart ?? old
                oldCount += 1
            case .added(_, let new):
                newStart = newStart ?? new
                newCount += 1
            }
        }
        // An empty side is numbered from the line before it, as diff -u does.
        func range(_ start: Int?, _ count: Int) -> String { count == 0 ? "\(start ?? 0),0" : "\((start ?? 0) + 1),\(count)" }
        return "@@ -\(range(oldStart, oldCount)) +\(range(newStart, newCount)) @@"
    }

    /// Lines with their terminators, so that CRLF and LF compare unequal.
    private static func lines(_ text: String) -> [String] {
        var result: [String] = []
        var current = ""
        for character in text {
            current.append(character)
            if character == "\n" || character == "\r\n" {
                result.append(current)
                current = ""
            }
        }
        if !current.isEmpty { result.append(current) }
        return result
    }

    private static func display(_ line: String) -> String {
        var text = line
        if text.hasSuffix("\r\n") || text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    private static func endings(_ text: String) -> String {
        let crlf = text.contains("\r\n"), lf = text.unicodeScalars.contains("\n") && text.replacingOccurrences(of: "\r\n", with: "").contains("\n")
        switch (crlf, lf) {
        case (true, true): return "mixed CRLF and LF"
        case (true, false): return "CRLF"
        case (false, true): return "LF"
        case (false, false): return "no line ending"
        }
    }
}
