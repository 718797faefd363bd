import ArgumentParser
import Foundation
import ICE
import Media
import Parley
import SDP

/// How a call gathers candidates and what it plays and records.
struct MediaFlags: ParsableArguments {
    enum ICEMode: String, ExpressibleByArgument, CaseIterable {
        case trickle, vanilla
    }

    @Option(help: "What to send: tone:HZ, silence, stdin (16-bit mono PCM at the codec rate), FILE.wav or loop:FILE.wav.")
    var play = "silence"

    @Option(help: "Where to put what we hear: FILE.wav, stereo:FILE.wav (local left, remote right), stdout or null.")
    var record = "null"

    @Option(help: "A STUN server, stun:HOST[:PORT] (repeatable).")
    var stun: [String] = []

    @Option(help: "A TURN server, turn:HOST[:PORT][?transport=udp|tcp] or turns:HOST[:PORT] (repeatable).")
    var turn: [String] = []

    @Option(help: "TURN username (or PARLEY_TURN_USER).")
    var turnUser: String?

    @Option(help: "TURN credential (or PARLEY_TURN_PASSWORD).")
    var turnPassword: String?

    @Option(help: "Read the TURN credential from the first line of this file.")
    var turnPasswordFile: String?

    @Option(help: "trickle: candidates follow the SDP; vanilla: all candidates inside it.")
    var ice: ICEMode = .trickle

    @Option(help: "Vanilla ICE: seconds to wait for candidates before sending the SDP anyway.")
    var iceTimeout: Double = 3

    @Flag(help: "Use only TURN relay candidates.")
    var relayOnly = false

    @Option(name: .customLong("interface"), help: "Gather only on this interface (repeatable; lo allows loopback).")
    var interfaces: [String] = []

    @Flag(name: .customLong("no-ipv6"), help: "Gather IPv4 candidates only.")
    var noIPv6 = false

    @Option(help: "Codecs in preference order, e.g. opus,PCMU,PCMA (telephone-event is always added).")
    var codecs: String?

    @Option(help: "Seconds without RTP before the call reports media disrupted.")
    var disruptionTimeout: Double = 5

    @Option(help: "Opus encoder complexity, 0 (least CPU) to 10 (best quality); 9 as libwebrtc on desktops.")
    var opusComplexity = OpusSettings.defaultComplexity

    @Option(help: "Seconds after the answer for media to connect (ICE, DTLS, RTP from the far end) before the call ends no-media (exit 4); 0 waits for ever.")
    var mediaTimeout: Double = 10

    @Option(help: ArgumentHelp("Munging rules for the SDPs the call sends and receives (docs/sdp.md, \"Rules files\").", valueName: "RULES.yaml"))
    var munge: String?

    @Option(name: .customLong("save-sdp"), help: ArgumentHelp("Write every SDP sent and received to DIR as CALL-N-sent|received-KIND.sdp (secrets redacted) with a JSON sidecar.", valueName: "DIR"))
    var saveSDP: String?

    /// Checks every local file the flags name before anything connects: the WAV to play is
    /// there and playable, the recording can be written.
    func checkLocalFiles(profile: ConfigProfile?) throws(LocalInputError) {
        do {
            try AudioSourceSpec(play).check()
        } catch {
            if case .cannotOpen = error { throw LocalInputError(error: ParleyError(kind: .audio, message: "--play: \(error)"), status: LocalInputError.unreadableInput) }
            throw LocalInputError(error: ParleyError(kind: .audio, message: "--play: \(error)"), status: ExitStatus.usage)
        }
        do {
            try AudioSinkSpec(record).check()
        } catch {
            throw LocalInputError(error: ParleyError(kind: .audio, message: "--record: \(error)"), status: ExitStatus.usage)
        }
        _ = try turnCredential(profile)
    }

    private func turnCredential(_ profile: ConfigProfile?) throws(LocalInputError) -> String? {
        try SecretFile.choose(value: turnPassword, file: turnPasswordFile, environment: "PARLEY_TURN_PASSWORD", flags: ("--turn-password", "--turn-password-file"),
                              profileFile: profile?.turnPasswordFile)
    }

    /// Refuses raw audio on standard output when standard output carries the --json lines.
    func checkOutput(json: Bool) throws {
        guard json, (try? AudioSinkSpec(record)) == .standardOutput else { return }
        throw ValidationError("--record stdout would mix raw audio into the --json lines on standard output: record to a FILE.wav, or leave out --json")
    }

    /// Refuses digits that are not DTMF before the call, not after it is up.
    static func checkDTMF(_ digits: String?) throws {
        guard let digits else { return }
        guard !digits.isEmpty else { throw ValidationError("--dtmf needs at least one digit (0-9 * # A-D)") }
        if let bad = digits.first(where: { DTMFDigit($0) == nil }) {
            throw ValidationError("--dtmf: \"\(bad)\" is not a DTMF digit; use 0-9 * # A-D")
        }
    }

    /// `profile` fills in the ICE servers and TURN login the flags and environment leave out.
    func mediaOptions(profile: ConfigProfile? = nil) throws(ParleyError) -> MediaOptions {
        var options = MediaOptions()
        do {
            options.source = try AudioSourceSpec(play)
            options.sink = try AudioSinkSpec(record)
        } catch {
            throw ParleyError(error)
        }
        let environment = ProcessInfo.processInfo.environment
        let username = turnUser ?? environment["PARLEY_TURN_USER"] ?? profile?.turnUser
        let credential: String?
        do { credential = try turnCredential(profile) } catch { throw error.error }
        let stunURLs = stun.isEmpty ? profile?.stun ?? [] : stun
        let turnURLs = turn.isEmpty ? profile?.turn ?? [] : turn
        do {
            options.iceServers = try stunURLs.map { try ICEServer(url: $0) } + turnURLs.map { try ICEServer(url: $0, username: username, credential: credential) }
        } catch {
            throw ParleyError(kind: .configuration, message: "\(error)")
        }
        guard iceTimeout > 0, iceTimeout <= 60 else { throw ParleyError(kind: .configuration, message: "--ice-timeout must be between 0 and 60 seconds") }
        guard disruptionTimeout > 0 else { throw ParleyError(kind: .configuration, message: "--disruption-timeout must be positive") }
        guard OpusSettings.complexityRange.contains(opusComplexity) else {
            throw ParleyError(kind: .configuration, message: "--opus-complexity must be between 0 and 10")
        }
        options.opusComplexity = opusComplexity
        guard mediaTimeout >= 0, mediaTimeout <= 3600 else { throw ParleyError(kind: .configuration, message: "--media-timeout must be between 0 and 3600 seconds") }
        options.iceMode = ice == .trickle ? .trickle : .vanilla(collectionTimeout: .milliseconds(Int(iceTimeout * 1000)))
        options.relayOnly = relayOnly
        options.allowedInterfaces = interfaces
        options.ipv6 = !noIPv6
        options.disruptionTimeout = .milliseconds(Int(disruptionTimeout * 1000))
        options.mediaTimeout = .milliseconds(Int(mediaTimeout * 1000))
        if let codecs { options.capabilities = try Self.capabilities(codecs) }
        if let munge {
            do {
                options.munging = try MungeRules(contentsOf: munge)
            } catch {
                throw ParleyError(kind: .configuration, message: "--munge " + error.located(in: munge))
            }
        }
        return options
    }

    /// Our standard capabilities narrowed to, and ordered by, the names given.
    static func capabilities(_ list: String) throws(ParleyError) -> AudioCapabilities {
        let standard = AudioCapabilities.standard
        var chosen: [CodecCapability] = []
        for name in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) where !name.isEmpty {
            let matches = standard.codecs.filter { $0.name.lowercased() == name && !$0.isTelephoneEvent }
            guard !matches.isEmpty else {
                let known = standard.codecs.filter { !$0.isTelephoneEvent }.map(\.name)
                throw ParleyError(kind: .configuration, message: "--codecs: unknown codec \"\(name)\"; Parley has \(known.joined(separator: ", "))")
            }
            chosen += matches.filter { !chosen.contains($0) }
        }
        guard !chosen.isEmpty else { throw ParleyError(kind: .configuration, message: "--codecs lists no codec") }
        let rates = Set(chosen.map(\.clockRate))
        chosen += standard.codecs.filter { $0.isTelephoneEvent && rates.contains($0.clockRate) }
        return AudioCapabilities(codecs: chosen, ptime: standard.ptime)
    }
}
