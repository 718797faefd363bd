import Testing
@testable import Parley

@Suite struct BotYAMLSubsetTests {
    private func parse(_ text: String) throws -> ScriptNode { try YAMLSubsetParser.parse(text) }

    private func syntaxError(_ text: String) -> ScriptSyntaxError? {
        do {
            _ = try YAMLSubsetParser.parse(text)
            return nil
        } catch {
            return error
        }
    }

    private func scalar(_ node: ScriptNode?) -> String? {
        if case .scalar(let text, _) = node { text } else { nil }
    }

    private func entries(_ node: ScriptNode?) -> [ScriptNode.Entry] {
        if case .mapping(let entries, _) = node { entries } else { [] }
    }

    private func items(_ node: ScriptNode?) -> [ScriptNode] {
        if case .sequence(let items, _) = node { items } else { [] }
    }

    private func value(_ node: ScriptNode?, _ key: String) -> ScriptNode? {
        entries(node).first { $0.key == key }?.value
    }

    @Test func nestedMappingsKeepKeysValuesAndLines() throws {
        let root = try parse("""
        ---
        # a comment line
        a:
          b:
            c: 1     # trailing comment
          d: two words
        e: 3.5
        """)
        #expect(entries(root).map(\.key) == ["a", "e"])
        #expect(scalar(value(value(value(root, "a"), "b"), "c")) == "1")
        #expect(scalar(value(value(root, "a"), "d")) == "two words")
        #expect(scalar(value(root, "e")) == "3.5")
        #expect(entries(value(root, "a")).map(\.line) == [4, 6])
    }

    @Test func listsInBothIndentationStylesAndCompactMappings() throws {
        let root = try parse("""
        indented:
          - one
          - two
        flush:
        - x
        - tone: 440
          seconds: 1
        -
          nested: yes
        - - inner
        """)
        #expect(items(value(root, "indented")).map { scalar($0) } == ["one", "two"])
        let flush = items(value(root, "flush"))
        #expect(flush.count == 4)
        #expect(scalar(flush[0]) == "x")
        #expect(entries(flush[1]).map(\.key) == ["tone", "seconds"])
        #expect(scalar(value(flush[1], "seconds")) == "1")
        #expect(scalar(value(flush[2], "nested")) == "yes")
        #expect(items(flush[3]).map { scalar($0) } == ["inner"])
    }

    @Test func quotedScalarsKeepHashesColonsAndEscapes() throws {
        let root = try parse(#"""
        "#": hangup
        '*': star
        stop: "#"    # the stop digit
        colon: "a: b"
        single: 'it''s'
        escapes: "tab\there \"q\" \u00e9"
        plain: a#b
        empty:
        tilde: ~
        """#)
        #expect(scalar(value(root, "#")) == "hangup")
        #expect(scalar(value(root, "*")) == "star")
        #expect(scalar(value(root, "stop")) == "#")
        #expect(scalar(value(root, "colon")) == "a: b")
        #expect(scalar(value(root, "single")) == "it's")
        #expect(scalar(value(root, "escapes")) == "tab\there \"q\" é")
        #expect(scalar(value(root, "plain")) == "a#b")
        #expect(value(root, "empty") == .null(line: 8))
        #expect(value(root, "tilde") == .null(line: 9))
    }

    @Test func windowsLineEndingsAndABOMAreAccepted() throws {
        let root = try parse("\u{FEFF}a: 1\t# tab, then comment\r\nb:\r\n  - x\r\n")
        #expect(scalar(value(root, "a")) == "1")
        #expect(items(value(root, "b")).count == 1)
    }

    @Test(arguments: [
        ("a: 1\n  b: 2\n", 2, "bad indentation"),
        ("a:\n    b: 1\n  c: 2\n", 3, "bad indentation"),
        ("a:\n  - x\n   - y\n", 3, "bad indentation"),
        ("a: 1\n\tb: 2\n", 2, "tab"),
        ("a: {b: 1}\n", 1, "flow collections"),
        ("a:\n  - [1, 2]\n", 2, "flow collections"),
        ("a: |\n  text\n", 1, "block scalars"),
        ("a: &anchor 1\n", 1, "anchors"),
        ("a: *anchor\n", 1, "anchors"),
        ("a: !tag 1\n", 1, "tags"),
        ("a: \"open\n", 1, "does not end"),
        ("a: \"x\" y\n", 1, "after a closing quote"),
        ("a: b: c\n", 1, "inside a value"),
        ("a: 1\na: 2\n", 2, "twice"),
        ("a: 1\njust text\n", 2, "expected `key: value`"),
        ("a: 1\n- x\n", 2, "list item"),
        ("a: \"\\q\"\n", 1, "unknown escape"),
        ("a: 1\n---\nb: 2\n", 2, "second document"),
        ("%YAML 1.2\na: 1\n", 1, "directives"),
        ("? complex\n: value\n", 1, "complex keys"),
    ])
    func outsideTheSubsetIsAnErrorWithItsLine(text: String, line: Int, message: String) {
        let error = syntaxError(text)
        #expect(error?.line == line, "\(text.debugDescription)")
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "no error") for \(text.debugDescription)")
    }
}
