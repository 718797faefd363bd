import ArgumentParser
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
        let warnings: [MungeWarning]
        do {
            warnings = try rules.apply(to: &sdp, direction: direction, type: sdpType)
        } catch {
            throw ValidationError(error.message)
        }
        for warning in warnings {
            FileHandle.standardError.write(Data("warning: \(warning.message)\n".utf8))
        }
        FileHandle.standardOutput.write(Data(SDPSerializer.bytes(sdp)))
    }
}

extension SDPDirection: ExpressibleByArgument {}
extension SDPType: ExpressibleByArgument {}
