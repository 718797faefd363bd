import ArgumentParser
import Drivers
import Foundation
import Parley
import SDP

struct SDPMungeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "munge",
        abstract: "Rewrite an SDP: payload numbers, codec priority, bandwidth, Opus parameters, trickle.",
        discussion: """
            Steps run in this order: --replace-payload, --codecs, --bandwidth, --opus-preset/--opus/--ptime, \
            --trickle, --strip-candidates, then the rules of --rules in their order (docs/sdp.md, "Rules files"). \
            Warnings go to standard error; the munged SDP to standard output.

            Exit status: 0 munged; 1 the SDP came out unchanged (unless --allow-unchanged); 2 invalid SDP; \
            64 bad usage, a rules file's mistake, or a --codecs list naming no codec of the SDP (a typo).
            """
    )

    @Argument(help: "The SDP file, or - for standard input.")
    var file: String

    @Option(name: .customLong("replace-payload"), help: ArgumentHelp("Give a codec a new payload type; a codec already holding it takes the old one.", valueName: "CODEC[;KEY=VALUE]:PT"))
    var replacements: [String] = []

    @Option(help: ArgumentHelp("Keep only these codecs, in this order (e.g. opus,PCMU,telephone-event).", valueName: "LIST"))
    var codecs: String?

    @Option(name: .customLong("bandwidth"), help: ArgumentHelp("Receive bandwidth for a media kind, as b=AS and b=TIAS.", valueName: "KIND=KBPS"))
    var bandwidths: [String] = []

    @Option(name: .customLong("opus-preset"), help: ArgumentHelp("Opus parameters: webrtc (24000, 40000, DTX off, FEC on, 20 ms) or preferred (16000, 20000, DTX on, FEC on, 60 ms).", valueName: "webrtc|preferred"))
    var opusPreset: String?

    @Option(name: .customLong("opus"), help: ArgumentHelp("An Opus parameter: maxplaybackrate, maxaveragebitrate, usedtx, useinbandfec or ptime.", valueName: "KEY=VALUE"))
    var opus: [String] = []

    @Option(help: ArgumentHelp("Packet time for sections carrying Opus (a multiple of 2.5 up to 120).", valueName: "MS"))
    var ptime: String?

    @Option(help: ArgumentHelp("Add or remove a=ice-options:trickle.", valueName: "on|off"))
    var trickle: String?

    @Flag(name: .customLong("strip-candidates"), help: "Remove every a=candidate and a=end-of-candidates line.")
    var stripCandidates = false

    @Option(help: ArgumentHelp("A YAML file of munging rules, applied after the flags.", valueName: "RULES.yaml"))
    var rules: String?

    @Option(help: ArgumentHelp("Which rules apply: those for SDPs Parley sends or receives.", valueName: "sent|received"))
    var direction: SDPDirection = .sent

    @Option(name: .customLong("type"), help: ArgumentHelp("Which rules apply: those for offers or answers.", valueName: "offer|answer"))
    var sdpType: SDPType = .offer

    @Flag(name: .customLong("allow-unchanged"), help: "Exit 0 when the munging changes nothing (by default that is an error: a typo or a rule that never applies).")
    var allowUnchanged = false

    /// Here rather than in `run`, so that a mistake prints munge's own usage.
    func validate() throws {
        _ = try mungeRules()
    }

    /// The flags, then the rules file.
    func mungeRules() throws -> MungeRules {
        var all = MungeRules(try request())
        if let rules {
            do {
                all.rules += try MungeRules(contentsOf: rules).rules
            } catch {
                throw ValidationError(error.located(in: rules))
            }
        }
        return all
    }

    /// The flags as one munging request, checked by the same parsers a rules file goes through.
    func request() throws -> MungeRequest {
        var request = MungeRequest()
        do {
            request.payloadReplacements = try replacements.map { text throws(MungeError) in try MungeRequest.parseReplacement(text) }
            if let codecs { request.codecPriority = try MungeRequest.parseCodecList(codecs) }
            request.bandwidths = try bandwidths.map { text throws(MungeError) in try MungeRequest.parseBandwidth(text) }
            request.opusOverrides = try opus.map { text throws(MungeError) in try MungeRequest.parseKeyValue(text) }
            if let opusPreset { request.opusPreset = try MungeRequest.parsePreset(opusPreset) }
            if let trickle { request.trickle = try MungeRequest.parseTrickle(trickle) }
        } catch {
            throw ValidationError(error.message)
        }
        if let ptime { request.opusOverrides.append((key: "ptime", value: ptime)) }
        request.stripCandidates = stripCandidates
        return request
    }

    func run() throws {
        let rules = try mungeRules()
        var sdp = try SDPInput(path: file, json: false).load()
        let original = SDPSerializer.bytes(sdp)
        if let unmatched = try request().unmatchedCodecs(in: sdp) {
            Self.usageError("--codecs \(unmatched): no codec of the SDP matches (it has \(Self.codecNames(in: sdp)))")
        }
        let warnings: [MungeWarning]
        do {
            warnings = try rules.apply(to: &sdp, direction: direction, type: sdpType)
        } catch {
            Self.usageError(error.message)
        }
        for warning in warnings {
            FileHandle.standardError.write(Data("warning: \(warning.message)\n".utf8))
        }
        let munged = SDPSerializer.bytes(sdp)
        if munged == original && !allowUnchanged {
            FileHandle.standardError.write(Data("error: the munging changed nothing in \(file); give --allow-unchanged if that is expected\n".utf8))
            throw ExitCode(1)
        }
        FileHandle.standardOutput.write(Data(munged))
    }

    /// A mistake found once the SDP is read, with munge's usage: thrown from `run`, ArgumentParser
    /// would show the top command's (`Usage: parley <subcommand>`).
    private static func usageError(_ message: String) -> Never {
        FileHandle.standardError.write(Data("Error: \(message)\nUsage: parley sdp \(usageString())\n  See 'parley sdp munge --help' for more information.\n".utf8))
        Foundation.exit(ExitStatus.usage)
    }

    private static func codecNames(in sdp: SessionDescription) -> String {
        var seen: [String] = []
        for codec in sdp.media.flatMap(\.codecs) where !seen.contains(codec.name) { seen.append(codec.name) }
        return seen.isEmpty ? "none" : seen.joined(separator: ", ")
    }
}

extension MungeRequest {
    /// The `--codecs` list when it names no codec of any section: a typo such as `opsu`, which
    /// would otherwise leave every section as it was with only a warning.
    func unmatchedCodecs(in sdp: SessionDescription) -> String? {
        guard !codecPriority.isEmpty else { return nil }
        let codecs = sdp.media.flatMap(\.codecs)
        guard !codecs.isEmpty, !codecs.contains(where: { codec in codecPriority.contains { $0.matches(codec) } }) else { return nil }
        return codecPriority.map(\.description).joined(separator: ",")
    }
}

extension SDPDirection: ExpressibleByArgument {}
extension SDPType: ExpressibleByArgument {}
