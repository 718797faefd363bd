import ArgumentParser
import Foundation
import SDP

struct SDPCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sdp",
        abstract: "Parse, print, munge, answer, test and compare session descriptions.",
        discussion: "FILE may be - for standard input. Invalid SDP exits with status 2 and FILE:LINE: reason on standard error.",
        subcommands: [SDPPrintCommand.self, SDPParseCommand.self, SDPMungeCommand.self, SDPAnswerCommand.self, SDPTestCommand.self, SDPDiffCommand.self]
    )
}

struct SDPPrintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "print",
        abstract: "Parse an SDP and print it back (byte-identical for valid input)."
    )

    @Argument(help: "The SDP file, or - for standard input.")
    var file: String

    func run() throws {
        let sdp = try SDPInput(path: file, json: false).load()
        FileHandle.standardOutput.write(Data(SDPSerializer.bytes(sdp)))
    }
}

struct SDPParseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parse",
        abstract: "Parse an SDP and print its structure (secrets redacted)."
    )

    @Argument(help: "The SDP file, or - for standard input.")
    var file: String

    @Flag(help: "Print one JSON object on standard output.")
    var json = false

    func run() throws {
        let input = SDPInput(path: file, json: json)
        if json {
            let (sdp, warnings) = try input.loadReportingWarnings()
            JSONEvents.emit("sdp", SDPPayload(file: file, sdp: sdp.redacted(), warnings: warnings.map(WarningPayload.init)))
        } else {
            let sdp = try input.load().redacted()
            print(SDPSummary.describe(sdp))
        }
    }
}

private struct SDPPayload: Encodable {
    let file: String
    let sdp: SessionDescription
    /// What the parser tolerated (`SDPParseWarning`); empty for a strictly valid document.
    let warnings: [WarningPayload]
}

private struct WarningPayload: Encodable {
    let line: Int
    let kind: String
    let message: String

    init(_ warning: SDPParseWarning) {
        line = warning.line
        kind = warning.kind.rawValue
        message = warning.message
    }
}
