import ArgumentParser
import Foundation
import Parley
import SDP

/// One case of `parley sdp test` (docs/sdp.md, "Testing your munging"): an input SDP, the
/// munging to apply (flags, a rules file, or both) and the expected output.
///
/// A case folder holds `expected.sdp`, the input as `input.sdp` or named on the first line of
/// `command`, the `parley sdp munge` arguments on the following lines of `command` (one per
/// line), `rules.yaml` when the case uses a rules file, and optionally `warnings`. A file trio
/// in the test folder is `NAME.in.sdp`, `NAME.rules.yaml` or `NAME.flags`, `NAME.expected.sdp`
/// (and optionally `NAME.warnings`).
struct SDPTestCase {
    let name: String
    /// The input SDP.
    let input: URL
    /// `parley sdp munge` arguments after the input; `--rules` paths made absolute.
    let arguments: [String]
    let expected: URL
    let warnings: URL

    enum Outcome {
        case passed
        case failed(diff: String)
    }

    /// What the munge gives, or why it could not run.
    struct Result {
        var output: String
        var warnings: String
    }

    // MARK: Finding cases

    /// The cases under `folder`, sorted by name: folders holding `expected.sdp` (searched
    /// depth first), and file trios beside them.
    static func discover(in folder: URL) throws -> [SDPTestCase] {
        let manager = FileManager.default
        var cases: [SDPTestCase] = []
        if manager.fileExists(atPath: folder.appendingPathComponent("expected.sdp").path) {
            return [try folderCase(folder, name: folder.lastPathComponent)]
        }
        func walk(_ directory: URL, prefix: String) throws {
            let entries = try manager.contentsOfDirectory(at: directory, includingPropertiesForKeys: [.isDirectoryKey]).sorted { $0.lastPathComponent < $1.lastPathComponent }
            for entry in entries {
                let name = prefix + entry.lastPathComponent
                if (try? entry.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true {
                    if manager.fileExists(atPath: entry.appendingPathComponent("expected.sdp").path) {
                        cases.append(try folderCase(entry, name: name))
                    } else {
                        try walk(entry, prefix: name + "/")
                    }
                } else if entry.lastPathComponent.hasSuffix(".expected.sdp") {
                    cases.append(try trioCase(entry, name: String(name.dropLast(".expected.sdp".count))))
                }
            }
        }
        try walk(folder, prefix: "")
        return cases
    }

    private static func folderCase(_ folder: URL, name: String) throws -> SDPTestCase {
        let manager = FileManager.default
        let command = folder.appendingPathComponent("command")
        var lines: [String] = []
        if manager.fileExists(atPath: command.path) {
            lines = try String(contentsOf: command, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
                .map { String($0.hasSuffix("\r") ? $0.dropLast() : $0) }
            while lines.last == "" { lines.removeLast() }
        }
        let input: URL
        let inputFile = folder.appendingPathComponent("input.sdp")
        if manager.fileExists(atPath: inputFile.path) {
            input = inputFile
        } else if let first = lines.first, !first.isEmpty {
            input = resolve(first, from: folder)
            lines.removeFirst()
        } else {
            throw ValidationError("\(name): no input.sdp, and no command file naming the input")
        }
        var arguments = lines
        if manager.fileExists(atPath: folder.appendingPathComponent("rules.yaml").path), !arguments.contains("--rules") {
            arguments += ["--rules", "rules.yaml"]
        }
        return SDPTestCase(name: name, input: input, arguments: absolute(arguments, in: folder),
                           expected: folder.appendingPathComponent("expected.sdp"), warnings: folder.appendingPathComponent("warnings"))
    }

    private static func trioCase(_ expected: URL, name: String) throws -> SDPTestCase {
        let folder = expected.deletingLastPathComponent()
        let stem = String(expected.lastPathComponent.dropLast(".expected.sdp".count))
        let file = { (suffix: String) in folder.appendingPathComponent(stem + suffix) }
        let manager = FileManager.default
        var arguments: [String] = []
        if manager.fileExists(atPath: file(".flags").path) {
            arguments = try String(contentsOf: file(".flags"), encoding: .utf8).split(separator: "\n").map(String.init)
        }
        if manager.fileExists(atPath: file(".rules.yaml").path) {
            arguments += ["--rules", file(".rules.yaml").path]
        }
        guard manager.fileExists(atPath: file(".in.sdp").path) else {
            throw ValidationError("\(name): \(stem).expected.sdp has no \(stem).in.sdp beside it")
        }
        return SDPTestCase(name: name, input: file(".in.sdp"), arguments: absolute(arguments, in: folder),
                           expected: expected, warnings: file(".warnings"))
    }

    /// An input named in a `command` file is looked up in the case folder, then in each folder
    /// above it, so cases can share inputs kept higher up (`valid/chrome-audio-offer.sdp`).
    private static func resolve(_ path: String, from folder: URL) -> URL {
        guard !path.hasPrefix("/") else { return URL(fileURLWithPath: path) }
        var directory = folder
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent(path)
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return folder.appendingPathComponent(path)
    }

    /// `--rules FILE` relative to the case folder.
    private static func absolute(_ arguments: [String], in folder: URL) -> [String] {
        var result = arguments
        for index in result.indices.dropLast() where result[index] == "--rules" && !result[index + 1].hasPrefix("/") {
            result[index + 1] = folder.appendingPathComponent(result[index + 1]).path
        }
        return result
    }

    // MARK: Running

    /// Munges the input exactly as `parley sdp munge` would.
    func run() -> Swift.Result<Result, SDPTestFailure> {
        let command: SDPMungeCommand
        let rules: MungeRules
        do {
            command = try SDPMungeCommand.parse([input.path] + arguments)
            rules = try command.mungeRules()
        } catch {
            return .failure(SDPTestFailure(SDPMungeCommand.message(for: error)))
        }
        guard let bytes = FileManager.default.contents(atPath: input.path) else {
            return .failure(SDPTestFailure("\(input.path): cannot read the input"))
        }
        var sdp: SessionDescription
        do {
            sdp = try SDPParser().parse(bytes: Array(bytes))
        } catch {
            return .failure(SDPTestFailure("\(input.path):\(error.line): \(error.reason)"))
        }
        do {
            let warnings = try rules.apply(to: &sdp, direction: command.direction, type: command.sdpType)
            return .success(Result(output: sdp.text, warnings: warnings.map { "warning: \($0.message)\n" }.joined()))
        } catch {
            return .failure(SDPTestFailure(error.message))
        }
    }

    /// Compares a run with the expectations; warnings only when the case has a `warnings` file.
    func check(_ result: Result) -> Outcome {
        let expectedOutput = (try? String(contentsOf: expected, encoding: .utf8)) ?? ""
        var diff = UnifiedDiff.render(old: expectedOutput, new: result.output, oldName: expected.lastPathComponent, newName: "munged")
        if FileManager.default.fileExists(atPath: warnings.path) {
            let expectedWarnings = (try? String(contentsOf: warnings, encoding: .utf8)) ?? ""
            diff += UnifiedDiff.render(old: expectedWarnings, new: result.warnings, oldName: warnings.lastPathComponent, newName: "warnings given")
        }
        return diff.isEmpty ? .passed : .failed(diff: diff)
    }

    /// Writes the run as the new expectations; `warnings` is written when it exists or when
    /// the run warned.
    func update(with result: Result) throws {
        try Data(result.output.utf8).write(to: expected)
        if FileManager.default.fileExists(atPath: warnings.path) || !result.warnings.isEmpty {
            try Data(result.warnings.utf8).write(to: warnings)
        }
    }
}

struct SDPTestFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
