import Foundation
import Drivers
import Parley
import SDP
import Testing

/// Rules files (docs/sdp.md, "Rules files"): the same operations as the `parley sdp munge`
/// flags, so every munge fixture's flags written as a rules file give the same bytes and warnings.
@Suite struct MungeRulesTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fixtures/sdp")

    static let flagCases: [String] = {
        let folder = fixtures.appendingPathComponent("munge")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted().filter { name in
            guard let command = try? String(contentsOf: folder.appendingPathComponent("\(name)/command"), encoding: .utf8) else { return false }
            return !command.contains("--rules") && !FileManager.default.fileExists(atPath: folder.appendingPathComponent("\(name)/rules.yaml").path)
        }
    }()

    /// The fixture's flags as YAML, one rule per flag in the order the flags run (the Opus
    /// preset, parameters and ptime together, as one Opus setting).
    static func yaml(for arguments: [String]) throws -> String {
        var replacements: [String] = [], codecs: [String] = [], bandwidths: [String] = [], opus: [String] = []
        var trickle: String?, strip = false
        var index = 0
        while index < arguments.count {
            let flag = arguments[index]
            index += 1
            if flag == "--strip-candidates" { strip = true; continue }
            let value = arguments[index]
            index += 1
            switch flag {
            case "--replace-payload": replacements.append("- replace-payload: \"\(value)\"")
            case "--codecs": codecs.append("- codecs: [\(value.split(separator: ",").map { "\"\($0)\"" }.joined(separator: ", "))]")
            case "--bandwidth":
                let parts = value.split(separator: "=")
                bandwidths.append("- bandwidth: {\(parts[0]): \(parts[1])}")
            case "--opus-preset": opus.insert("opus-preset: \(value)", at: 0)
            case "--opus":
                let parts = value.split(separator: "=")
                opus.append("opus: {\(parts[0]): \(parts[1])}")
            case "--ptime": opus.append("ptime: \(value)")
            case "--trickle": trickle = value
            default: Issue.record("unknown flag \(flag)")
            }
        }
        // Several --opus flags become one mapping.
        let opusPairs = opus.filter { $0.hasPrefix("opus: ") }.map { $0.dropFirst("opus: {".count).dropLast() }
        var opusRule = opus.filter { !$0.hasPrefix("opus: ") }
        if !opusPairs.isEmpty { opusRule.append("opus: {\(opusPairs.joined(separator: ", "))}") }
        var lines = ["# written from the fixture's flags", "rules:"] + replacements + codecs + bandwidths
        if !opusRule.isEmpty { lines.append("- " + opusRule.joined(separator: "\n  ")) }
        if let trickle { lines.append("- trickle: \(trickle)") }
        if strip { lines.append("- strip-candidates: true") }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test(arguments: flagCases)
    func rulesFileGivesWhatTheFlagsGive(name: String) throws {
        let folder = Self.fixtures.appendingPathComponent("munge/\(name)")
        let command = try String(contentsOf: folder.appendingPathComponent("command"), encoding: .utf8).split(separator: "\n").map(String.init)
        let rules = try MungeRules(yaml: try Self.yaml(for: Array(command.dropFirst())))
        var sdp = try SDPParser().parse(bytes: Array(try Data(contentsOf: Self.fixtures.appendingPathComponent(command[0]))))
        let warnings = try rules.apply(to: &sdp, direction: .sent, type: .offer)
        let expected = try String(contentsOf: folder.appendingPathComponent("expected.sdp"), encoding: .utf8)
        #expect(sdp.text == expected)
        let expectedWarnings = try String(contentsOf: folder.appendingPathComponent("warnings"), encoding: .utf8)
        #expect(warnings.map { "warning: \($0.message)\n" }.joined() == expectedWarnings)
    }

    @Test func mistakesAreReportedWithTheirLine() throws {
        let cases: [(yaml: String, line: Int, says: String)] = [
            ("rules:\n  - codecs: opus\n  - trickle: maybe\n", 3, "trickle must be on or off"),
            ("- replace-payload: opus:300\n", 1, "0 to 127"),
            ("- codecs: opus\n- bandwidth: audio\n", 2, "NAME=VALUE"),
            ("- codecs: opus\n  colour: blue\n", 2, "unknown key \"colour\""),
            ("- opus: {stereo: 1}\n", 1, "unknown Opus parameter"),
            ("- direction: sent\n", 1, "no operation"),
            ("- media: audio\n  codecs: [opus\n", 3, "not valid YAML"),
            ("- codecs: opus\n  direction: sideways\n", 2, "sent or received"),
            // Refused before Yams' composer, whose duplicate-key check is exponential in such keys.
            ("- codecs: opus\n  ? - ? - a\n  : x\n", 2, "keys are plain text"),
            ("- codecs: \(String(repeating: "[", count: 40))\n", 1, "nested more than 32 deep"),
        ]
        for (yaml, line, says) in cases {
            let error = try #require(throws: MungeRulesError.self) { try MungeRules(yaml: yaml) }
            #expect(error.line == line, "\(yaml)")
            #expect(error.message.contains(says), "\(error.message)")
        }
    }

    @Test func scopesPickDirectionTypeAndMedia() throws {
        let rules = try MungeRules(yaml: """
            - bandwidth: {audio: 32, video: 500}
              media: video
            - trickle: off
              direction: received
            - strip-candidates: true
              sdp: answer
            """)
        let input = try SDPParser().parse(bytes: Array(try Data(contentsOf: Self.fixtures.appendingPathComponent("valid/janus-videoroom-subscriber-offer.sdp"))))
        var sentOffer = input
        let warnings = try rules.apply(to: &sentOffer, direction: .sent, type: .offer)
        // Only the video m-line got b= lines; nothing else changed.
        let diff = SDPDiff(from: input, to: sentOffer)
        #expect(diff.addedLines.sorted() == ["b=AS:500", "b=TIAS:500000"])
        #expect(diff.removedLines.isEmpty)
        #expect(warnings == [MungeWarning("no audio m-line; b= not added")])
        var receivedAnswer = input
        _ = try rules.apply(to: &receivedAnswer, direction: .received, type: .answer)
        #expect(!receivedAnswer.text.contains("a=candidate:"))
        #expect(!receivedAnswer.text.contains("trickle"))
        #expect(receivedAnswer.media.first { $0.kind == "video" }?.bandwidths.contains { $0.type == "AS" } == true)
    }
}
