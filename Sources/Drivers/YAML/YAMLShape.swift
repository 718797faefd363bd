internal import CLibYAML
import Parley

/// Why a YAML document is refused before Yams builds its tree.
enum YAMLShapeProblem: Error, Equatable {
    /// A mapping key that is a list, a mapping or an alias (`? - a`, `[a]: b`, `*x : b`).
    case complexKey(line: Int)
    /// Lists and mappings nested deeper than the limit.
    case tooDeep(line: Int, limit: Int)
    /// More nodes than the limit, counting each alias as the whole node it stands for.
    case tooManyNodes(line: Int, limit: Int)

    var line: Int {
        switch self {
        case .complexKey(let line), .tooDeep(let line, _), .tooManyNodes(let line, _): line
        }
    }

    var message: String {
        switch self {
        case .complexKey: "a key here is a list, a mapping or an alias; keys are plain text"
        case .tooDeep(_, let limit): "lists and mappings are nested more than \(limit) deep here"
        case .tooManyNodes(_, let limit): "more than \(limit) values by here (an alias counts as all it stands for)"
        }
    }
}

/// Checks the shape of a YAML document from libyaml's event stream, which costs time linear in the
/// text and builds no tree. Yams' composer compares keys that are lists or mappings in time that
/// grows exponentially with their nesting (a 2 KiB file of nested `? -` keys ran for more than 10 s,
/// docs/hardening.md), and a tree reached through aliases grows exponentially with their nesting,
/// so both are refused here, where neither costs anything.
///
/// A syntax error ends the check without a problem: the composer then reports it with libyaml's
/// own message, and since it reads the same events, it cannot meet a refused construct first.
enum YAMLShape {
    static func check(_ text: String, maximumDepth: Int, maximumNodes: Int) throws(YAMLShapeProblem) {
        var bytes = Array(text.utf8)
        if bytes.isEmpty { bytes.append(0x0A) }
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { return }
        defer { yaml_parser_delete(&parser) }
        try bytes.withUnsafeBufferPointer { (buffer) throws(YAMLShapeProblem) in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
            var walk = ShapeWalk(maximumDepth: maximumDepth, maximumNodes: maximumNodes)
            var event = yaml_event_t()
            while yaml_parser_parse(&parser, &event) == 1 {
                defer { yaml_event_delete(&event) }
                if event.type == YAML_STREAM_END_EVENT { return }
                try walk.take(event)
            }
        }
    }
}

/// The walk through the events: which collections are open, whether each mapping waits for a key,
/// and how many nodes each open collection holds so far (for the size an anchor stands for).
private struct ShapeWalk {
    private struct Open {
        let isMapping: Bool
        var expectsKey: Bool
        var nodes: Int
        let anchor: String?
    }

    let maximumDepth: Int
    let maximumNodes: Int
    private var open: [Open] = []
    private var total = 0
    private var anchored: [String: Int] = [:]

    init(maximumDepth: Int, maximumNodes: Int) {
        self.maximumDepth = maximumDepth
        self.maximumNodes = maximumNodes
    }

    mutating func take(_ event: yaml_event_t) throws(YAMLShapeProblem) {
        let line = Int(event.start_mark.line) + 1
        switch event.type {
        case YAML_SCALAR_EVENT:
            try node(line: line, isScalar: true, size: 1)
            if let anchor = Self.text(event.data.scalar.anchor) { anchored[anchor] = 1 }
        case YAML_ALIAS_EVENT:
            let size = Self.text(event.data.alias.anchor).flatMap { anchored[$0] } ?? 1
            try node(line: line, isScalar: false, size: size)
        case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
            try node(line: line, isScalar: false, size: 1)
            guard open.count < maximumDepth else { throw .tooDeep(line: line, limit: maximumDepth) }
            let isMapping = event.type == YAML_MAPPING_START_EVENT
            let anchor = Self.text(isMapping ? event.data.mapping_start.anchor : event.data.sequence_start.anchor)
            open.append(Open(isMapping: isMapping, expectsKey: true, nodes: 1, anchor: anchor))
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            guard let closed = open.popLast() else { return }
            if let anchor = closed.anchor { anchored[anchor] = closed.nodes }
            if !open.isEmpty { open[open.count - 1].nodes += closed.nodes - 1 }
        default:
            return
        }
    }

    /// Counts a node of `size` nodes in the collection it sits in, which already counted its start
    /// as one; a key of a mapping must be a scalar.
    private mutating func node(line: Int, isScalar: Bool, size: Int) throws(YAMLShapeProblem) {
        if let parent = open.last, parent.isMapping {
            if parent.expectsKey, !isScalar { throw .complexKey(line: line) }
            open[open.count - 1].expectsKey.toggle()
        }
        total += size
        guard total <= maximumNodes else { throw .tooManyNodes(line: line, limit: maximumNodes) }
        if !open.isEmpty { open[open.count - 1].nodes += size }
    }

    private static func text(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.map { String(cString: $0) }
    }
}
