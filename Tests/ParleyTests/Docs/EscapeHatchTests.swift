import Foundation
import Testing

/// The compiler cannot check an `@unchecked Sendable` type, a `nonisolated(unsafe)` variable or
/// an unstructured `Task {` (nothing awaits it, so nothing sees it fail or outlive its owner).
/// Each one in Sources/ says why it must be so, in a comment on its line or the comment lines
/// right above it, starting with `Unchecked:`, `Unsafe:` or `Unstructured:` (docs/architecture.md,
/// "Escape hatches").
@Suite struct EscapeHatchTests {
    @Test func everyUncheckedSendableSaysWhy() throws {
        let bare = try EscapeHatches.unexplained(#"@unchecked Sendable"#, reason: "Unchecked:")
        #expect(bare.isEmpty, "@unchecked Sendable without an `Unchecked:` comment: \(bare)")
    }

    @Test func everyNonisolatedUnsafeSaysWhy() throws {
        let bare = try EscapeHatches.unexplained(#"nonisolated\(unsafe\)"#, reason: "Unsafe:")
        #expect(bare.isEmpty, "nonisolated(unsafe) without an `Unsafe:` comment: \(bare)")
    }

    @Test func everyUnstructuredTaskSaysWhy() throws {
        let bare = try EscapeHatches.unexplained(#"\bTask(?:\.detached)?\s*(?:\([^)]*\))?\s*\{"#, reason: "Unstructured:")
        #expect(bare.isEmpty, "Task { } without an `Unstructured:` comment: \(bare)")
    }

    /// The scan itself: a bare site is found, an explained one (same line or the comment above,
    /// past a doc comment) is not.
    @Test func theScanTellsExplainedFromBare() {
        let text = """
            // Unstructured: the pump outlives this call; stop() cancels it.
            pump = Task { await run() }
            let bare = Task { await run() }
            /// A type.
            /// Unchecked: only the loop thread touches it.
            final class A: @unchecked Sendable {}
            final class B: @unchecked Sendable {} // Unchecked: immutable C pointers.
            """
        #expect(EscapeHatches.unexplained(#"\bTask\s*\{"#, reason: "Unstructured:", in: text) == [3])
        #expect(EscapeHatches.unexplained(#"@unchecked Sendable"#, reason: "Unchecked:", in: text).isEmpty)
    }
}

enum EscapeHatches {
    /// `file:line` of every line matching `pattern` in Sources/ whose own comment or the comment
    /// block directly above does not contain `reason`.
    static func unexplained(_ pattern: String, reason: String) throws -> [String] {
        try ArchitectureSources.sources().flatMap { file in
            unexplained(pattern, reason: reason, in: file.text).map { "\(file.path):\($0)" }
        }
    }

    /// The 1-based lines of `text` that match `pattern` without `reason` nearby.
    static func unexplained(_ pattern: String, reason: String, in text: String) -> [Int] {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var bare: [Int] = []
        for (index, line) in lines.enumerated() {
            let code = line.components(separatedBy: "//").first ?? line
            guard regex.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil else { continue }
            if line.contains(reason) { continue }
            var above = index - 1
            var explained = false
            while above >= 0, lines[above].trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                if lines[above].contains(reason) { explained = true; break }
                above -= 1
            }
            if !explained { bare.append(index + 1) }
        }
        return bare
    }
}
