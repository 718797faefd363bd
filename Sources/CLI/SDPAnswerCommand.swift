import ArgumentParser
import Foundation
import Parley
import SDP

struct SDPAnswerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "answer",
        abstract: "Print the answer Parley would give to an offer.",
        discussion: "ICE credentials, the DTLS certificate fingerprint and SDES keys are made fresh for each run, as for a real call. An offer without ICE (a desk phone, a trunk) is answered as a SIP call answers it: no ICE lines, SDES keys when it offers a=crypto, and RTP at the placeholder 192.0.2.1:40000 where a call puts its own socket's address."
    )

    @Argument(help: "The offer, or - for standard input.")
    var offerFile: String

    @Option(help: ArgumentHelp("Codec order of the answer: offerer (RFC 3264's advice) or ours.", valueName: "offerer|ours"))
    var order: String = "offerer"

    @Option(help: ArgumentHelp("The direction we want: sendrecv, sendonly, recvonly or inactive.", valueName: "DIRECTION"))
    var direction: String = "sendrecv"

    @Flag(help: "Answer offers that use SDES keys (a=crypto) rather than DTLS-SRTP.")
    var sdes = false

    @Flag(name: .customLong("allow-unencrypted"), help: "Also answer plain RTP/AVP offers (no SRTP). Off by default.")
    var allowUnencrypted = false

    func run() throws {
        guard let codecOrder = CodecOrder(rawValue: order) else { throw ValidationError("--order must be offerer or ours") }
        guard let wanted = Direction(rawValue: direction) else {
            throw ValidationError("--direction must be sendrecv, sendonly, recvonly or inactive")
        }
        let input = SDPInput(path: offerFile, json: false)
        let offer = try input.load()
        do {
            let answer = try LocalAnswer.make(to: offer, codecOrder: codecOrder, direction: wanted, sdes: sdes, allowUnencrypted: allowUnencrypted)
            FileHandle.standardOutput.write(Data(SDPSerializer.bytes(answer.description)))
        } catch {
            let hint = !allowUnencrypted && error.description.contains("unencrypted RTP") ? "; give --allow-unencrypted to answer it with plain RTP" : ""
            FileHandle.standardError.write(Data("\(input.displayName): \(error.description)\(hint)\n".utf8))
            throw ExitCode(1)
        }
    }
}
