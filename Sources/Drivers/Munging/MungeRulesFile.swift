import Foundation
import SDP
import Yams
import Parley

/// A rules file that cannot be used, with the line it concerns (1-based; nil for the whole file).
public struct MungeRulesError: Error, Sendable, Equatable, CustomStringConvertible {
    public let line: Int?
    public let message: String

    public init(line: Int?, _ message: String) {
        self.line = line
        self.message = message
    }

    /// `line N: message`, or the message alone.
    public var description: String { line.map { "line \($0): \(message)" } ?? message }

    /// `FILE:LINE: message`, as compilers write it.
    public func located(in path: String) -> String { "\(path):\(line.map { "\($0):" } ?? "") \(message)" }
}

extension MungeRules {
    /// Reads a rules file (docs/sdp.md, "Rules files"): a YAML list of rules, or a mapping whose
    /// `rules` key holds that list. Each rule names operations by the `parley sdp munge` flag
    /// names and is checked by the same parsers, so a mistake is reported with its line before
    /// any SDP is touched.
    public init(yaml: String) throws(MungeRulesError) {
        // What would make Yams' composer slow is refused first, as for bot scripts (docs/sdp.md).
        do {
            try YAMLShape.check(yaml, maximumDepth: 32, maximumNodes: 100_000)
        } catch {
            throw MungeRulesError(line: error.line, error.message)
        }
        let root: Node?
        do {
            root = try Yams.compose(yaml: yaml)
        } catch let error as YamlError {
            throw MungeRulesError(line: error.line, "not valid YAML: \(error.problem)")
        } catch {
            throw MungeRulesError(line: nil, "not valid YAML: \(error)")
        }
        guard let root else { throw MungeRulesError(line: nil, "the file is empty; expected a list of rules") }
        var list = root
        if let mapping = root.mapping {
            for (key, _) in mapping where key.string != "rules" {
                throw MungeRulesError(line: key.line, "unknown key \"\(key.string ?? "")\" at the top; expected rules")
            }
            guard let rules = mapping["rules"] else { throw MungeRulesError(line: root.line, "expected a rules: list") }
            list = rules
        }
        guard let sequence = list.sequence else { throw MungeRulesError(line: list.line, "expected a list of rules") }
        var rules: [MungeRule] = []
        for node in sequence {
            rules.append(try MungeRuleReader.read(node))
        }
        self.init(rules)
    }

    /// Reads the rules file at `path`.
    public init(contentsOf path: String) throws(MungeRulesError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw MungeRulesError(line: nil, "\(path): cannot read the rules file")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw MungeRulesError(line: nil, "\(path): the rules file is not UTF-8")
        }
        try self.init(yaml: text)
    }
}

/// One rule of a rules file, read key by key.
private enum MungeRuleReader {
    static let operationKeys = ["replace-payload", "codecs", "bandwidth", "opus-preset", "opus", "ptime", "trickle", "strip-candidates"]
    static let scopeKeys = ["direction", "sdp", "media"]

    static func read(_ node: Node) throws(MungeRulesError) -> MungeRule {
        guard let mapping = node.mapping else {
            throw MungeRulesError(line: node.line, "a rule must be a mapping of operations, e.g. codecs: opus,PCMU")
        }
        var rule = MungeRule(MungeRequest())
        var ptime: String?
        for (keyNode, value) in mapping {
            let key = keyNode.string ?? ""
            do throws(MungeError) {
                switch key {
                case "replace-payload":
                    rule.request.payloadReplacements += try strings(value, key).map { text throws(MungeError) in try MungeRequest.parseReplacement(text) }
                case "codecs":
                    rule.request.codecPriority = []
                    for text in try strings(value, key) { rule.request.codecPriority += try MungeRequest.parseCodecList(text) }
                case "bandwidth":
                    rule.request.bandwidths += try keyValues(value, key).map { pair throws(MungeError) in try MungeRequest.parseBandwidth("\(pair.key)=\(pair.value)") }
                case "opus-preset":
                    rule.request.opusPreset = try MungeRequest.parsePreset(try scalar(value, key))
                case "opus":
                    rule.request.opusOverrides += try keyValues(value, key).map { pair throws(MungeError) in try MungeRequest.parseKeyValue("\(pair.key)=\(pair.value)") }
                case "ptime":
                    ptime = try scalar(value, key)
                case "trickle":
                    rule.request.trickle = try MungeRequest.parseTrickle(try switchValue(value, key))
                case "strip-candidates":
                    rule.request.stripCandidates = try switchValue(value, key) == "on"
                case "direction":
                    let text = try scalar(value, key)
                    guard let direction = SDPDirection(rawValue: text) else { throw MungeError("direction must be sent or received, not \"\(text)\"") }
                    rule.direction = direction
                case "sdp":
                    let text = try scalar(value, key)
                    guard let type = SDPType(rawValue: text) else { throw MungeError("sdp must be offer or answer, not \"\(text)\"") }
                    rule.type = type
                case "media":
                    let kinds = try strings(value, key).flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
                    guard !kinds.isEmpty, kinds.allSatisfy({ !$0.isEmpty }) else { throw MungeError("media must name media kinds, e.g. audio or [audio, video]") }
                    rule.media = Set(kinds)
                default:
                    throw MungeError("unknown key \"\(key)\"; a rule takes \((operationKeys + scopeKeys).joined(separator: ", "))")
                }
            } catch {
                throw MungeRulesError(line: value.line ?? keyNode.line, error.message)
            }
        }
        // As with the flags, ptime is an Opus parameter that follows the others.
        if let ptime { rule.request.opusOverrides.append((key: "ptime", value: ptime)) }
        guard !rule.request.isEmpty else {
            throw MungeRulesError(line: node.line, "the rule has no operation; it needs one of \(operationKeys.joined(separator: ", "))")
        }
        // Opus values are checked now, so an unknown key is reported with the rule's line.
        if rule.request.opusPreset != nil || !rule.request.opusOverrides.isEmpty {
            do throws(MungeError) {
                _ = try OpusParameters.resolve(preset: rule.request.opusPreset, overrides: rule.request.opusOverrides)
            } catch {
                throw MungeRulesError(line: node.line, error.message)
            }
        }
        return rule
    }

    static func scalar(_ node: Node, _ key: String) throws(MungeError) -> String {
        guard let scalar = node.scalar else { throw MungeError("\(key) takes a single value") }
        return scalar.string
    }

    /// One string or a list of strings.
    static func strings(_ node: Node, _ key: String) throws(MungeError) -> [String] {
        if let scalar = node.scalar { return [scalar.string] }
        guard let sequence = node.sequence else { throw MungeError("\(key) takes a value or a list of values") }
        var values: [String] = []
        for item in sequence {
            guard let scalar = item.scalar else { throw MungeError("\(key): each item must be a single value") }
            values.append(scalar.string)
        }
        return values
    }

    /// `KEY=VALUE` strings (one or a list), or a mapping of KEY: VALUE.
    static func keyValues(_ node: Node, _ key: String) throws(MungeError) -> [(key: String, value: String)] {
        if let mapping = node.mapping {
            var pairs: [(key: String, value: String)] = []
            for (name, value) in mapping {
                guard let name = name.scalar?.string, let value = value.scalar?.string else {
                    throw MungeError("\(key): each entry must be NAME: VALUE")
                }
                pairs.append((name, value))
            }
            return pairs
        }
        return try strings(node, key).map { text throws(MungeError) in
            guard let equals = text.firstIndex(of: "=") else { throw MungeError("\(key): \"\(text)\" must be NAME=VALUE") }
            return (String(text[..<equals]), String(text[text.index(after: equals)...]))
        }
    }

    /// YAML's true/false (and on/off, yes/no) as `on` or `off`.
    static func switchValue(_ node: Node, _ key: String) throws(MungeError) -> String {
        let text = try scalar(node, key).lowercased()
        switch text {
        case "on", "true", "yes": return "on"
        case "off", "false", "no": return "off"
        default: throw MungeError("\(key) must be on or off, not \"\(text)\"")
        }
    }
}
