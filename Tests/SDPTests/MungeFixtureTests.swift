import Foundation
import SDP
import Testing

/// Each folder of `fixtures/sdp/munge/` is one case: `command` (the input fixture, then the
/// `parley sdp munge` arguments, one per line), `expected.sdp`, and `warnings`. Cases with a
/// rules file need the YAML reader of the Parley library: `MungeRulesTests` and
/// `parley sdp test` (scripts/test-cli) run those.
@Suite struct MungeFixtureTests {
    static let cases = Fixtures.folders(in: "munge").map(\.lastPathComponent).filter { name in
        !((try? Fixtures.text(Fixtures.root.appendingPathComponent("munge/\(name)/command"))) ?? "").contains("--rules")
            && !FileManager.default.fileExists(atPath: Fixtures.root.appendingPathComponent("munge/\(name)/rules.yaml").path)
    }

    @Test func casesCoverFourStacks() {
        let inputs = Self.cases.compactMap { try? Self.command(of: $0).input }
        let stacks = Set(inputs.map { $0.split(separator: "/").last!.split(separator: "-").first! })
        #expect(stacks.count >= 4, "munge fixtures cover only \(stacks.sorted())")
    }

    @Test(arguments: cases)
    func mungedOutputMatches(name: String) throws {
        let folder = Fixtures.root.appendingPathComponent("munge/\(name)")
        let (input, arguments) = try Self.command(of: name)
        var sdp = try SDPParser().parse(bytes: Fixtures.bytes(Fixtures.root.appendingPathComponent(input)))
        let warnings = try Self.request(from: arguments).apply(to: &sdp)
        let expected = try Fixtures.bytes(folder.appendingPathComponent("expected.sdp"))
        let difference = firstDifference(SDPSerializer.bytes(sdp), expected)
        #expect(difference == nil, "munged output differs from expected.sdp at \(difference ?? "")")
        let expectedWarnings = try Fixtures.text(folder.appendingPathComponent("warnings"))
            .split(separator: "\n").map { String($0.dropFirst("warning: ".count)) }
        #expect(warnings.map(\.message) == expectedWarnings)
        // Munged output is itself valid SDP.
        #expect(throws: Never.self) { try SDPParser().parse(bytes: expected) }
    }

    static func command(of name: String) throws -> (input: String, arguments: [String]) {
        let lines = try Fixtures.text(Fixtures.root.appendingPathComponent("munge/\(name)/command"))
            .split(separator: "\n").map(String.init)
        return (lines[0], Array(lines.dropFirst()))
    }

    /// The flags of `parley sdp munge`, through the same parsers the CLI uses.
    static func request(from arguments: [String]) throws -> MungeRequest {
        var request = MungeRequest()
        var index = 0
        while index < arguments.count {
            let flag = arguments[index]
            index += 1
            if flag == "--strip-candidates" {
                request.stripCandidates = true
                continue
            }
            try #require(index < arguments.count, "\(flag) needs a value")
            let value = arguments[index]
            index += 1
            switch flag {
            case "--replace-payload": request.payloadReplacements.append(try MungeRequest.parseReplacement(value))
            case "--codecs": request.codecPriority = try MungeRequest.parseCodecList(value)
            case "--bandwidth": request.bandwidths.append(try MungeRequest.parseBandwidth(value))
            case "--opus-preset":
                request.opusPreset = OpusParameters.Preset(rawValue: value)
                #expect(request.opusPreset != nil, "unknown preset \(value)")
            case "--opus": request.opusOverrides.append(try MungeRequest.parseKeyValue(value))
            case "--ptime": request.opusOverrides.append((key: "ptime", value: value))
            case "--trickle": request.trickle = value == "on"
            default: Issue.record("unknown flag \(flag)")
            }
        }
        return request
    }
}
