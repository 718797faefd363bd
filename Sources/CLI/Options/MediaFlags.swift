import ArgumentParser
import Drivers
import Foundation
import Media
import Parley
import SDP

extension DTMFMode: ExpressibleByArgument {}
extension MediaProfile: ExpressibleByArgument {}

/// How a call gathers candidates and what it plays and records.
struct MediaFlags: ParsableArguments {
    enum ICEMode: String, ExpressibleByArgument, CaseIterable {
        case trickle, vanilla
    }

    @Option(help: "What to send: tone:HZ, silence, stdin (16-bit mono PCM at the codec rate), FILE.wav, loop:FILE.wav, mic or mic:DEVICE (docs/audio.md). Default: silence, or the default microphone on a terminal with a sound server.")
    var play: String?

    @Option(help: "Where to put what we hear: FILE.wav, stereo:FILE.wav (local left, remote right), stdout, null, speaker or speaker:DEVICE. Default: null, or the default speaker on a terminal with a sound server.")
    var record: String?

    @Option(help: ArgumentHelp("A recording made beside --record (the speaker, say): FILE.wav or stereo:FILE.wav.", valueName: "FILE.wav"))
    var tee: String?

    @Flag(name: .customLong("no-aec"), help: "Microphone: no acoustic echo cancellation.")
    var noAEC = false

    @Flag(name: .customLong("no-noise-suppression"), help: "Microphone: no noise suppression.")
    var noNoiseSuppression = false

    @Flag(name: .customLong("no-agc"), help: "Microphone: no automatic gain control.")
    var noAGC = false

    /// What --play names, or its default.
    var playSpec: String { play ?? "silence" }
    /// What --record names, or its default.
    var recordSpec: String { record ?? "null" }

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
    var iceTimeout: Duration = .seconds(3)

    @Flag(help: "Use only TURN relay candidates.")
    var relayOnly = false

    @Option(name: .customLong("interface"), help: "Gather only on this interface (repeatable; lo allows loopback).")
    var interfaces: [String] = []

    @Flag(name: .customLong("no-ipv6"), help: "Gather IPv4 candidates only.")
    var noIPv6 = false

    @Option(help: "SIP: what our offers carry: webrtc (ICE, DTLS-SRTP), plain (RTP/AVP without ICE or SRTP; also lets us answer unencrypted offers) or sdes (RTP/SAVP with a=crypto keys, without ICE). Answers follow the offer (docs/sip.md, \"Media per peer\").")
    var media: MediaProfile = .webrtc

    @Option(help: "Codecs in preference order, e.g. opus,PCMU,PCMA (telephone-event is always added).")
    var codecs: String?

    @Option(help: "How digits leave: rfc4733 (RTP events; a Verto info per digit if the far end has no telephone-event), info (a Verto info per digit, as the Telnyx SDKs), both.")
    var dtmfMode: DTMFMode = .rfc4733

    @Option(help: "Seconds without RTP before the call reports media disrupted.")
    var disruptionTimeout: Duration = .seconds(5)

    @Option(help: "Opus encoder complexity, 0 (least CPU) to 10 (best quality); 9 as libwebrtc on desktops. The most a call uses: while a media clock runs short of time its calls encode with less.")
    var opusComplexity = OpusSettings.defaultComplexity

    @Flag(help: "Keep --opus-complexity whatever the load, even when media clocks fall behind (reproducible encodings, codec comparisons).")
    var fixedOpusComplexity = false

    @Option(help: "Seconds after the answer for media to connect (ICE, DTLS, RTP from the far end) before the call ends no-media (exit 4); 0 waits for ever.")
    var mediaTimeout: Duration = .seconds(10)

    @Option(help: "Seconds without RTP or RTCP from the far end, mid-call and neither side holding, before the call ends no-media (exit 4): a peer gone without hanging up. 0 (default): never, as ICE consent ends a WebRTC call after 30 s anyway.")
    var rtpTimeout: Duration = .zero

    @Option(help: ArgumentHelp("Munging rules for the SDPs the call sends and receives (docs/sdp.md, \"Rules files\").", valueName: "RULES.yaml"))
    var munge: String?

    @Option(name: .customLong("save-sdp"), help: ArgumentHelp("Write every SDP sent and received to DIR as CALL-N-sent|received-KIND.sdp (secrets redacted) with a JSON sidecar.", valueName: "DIR"))
    var saveSDP: String?

    /// Checks every local file the flags name before anything connects: the WAV to play is
    /// there and playable, the recording can be written.
    func checkLocalFiles(profile: ConfigProfile?) throws(LocalInputError) {
        do {
            try AudioSourceSpec(playSpec).check()
        } catch {
            if case .cannotOpen = error { throw LocalInputError(error: ParleyError(kind: .audio, message: "--play: \(error)"), status: LocalInputError.unreadableInput) }
            throw Self.localError(error, flag: "--play")
        }
        do {
            try AudioSinkSpec(recordSpec).check()
            if let tee { try AudioSinkSpec(tee).check() }
        } catch {
            throw Self.localError(error, flag: "--record")
        }
        _ = try turnCredential(profile)
    }

    private func turnCredential(_ profile: ConfigProfile?) throws(LocalInputError) -> String? {
        try SecretFile.choose(value: turnPassword, file: turnPasswordFile, environment: "PARLEY_TURN_PASSWORD", flags: ("--turn-password", "--turn-password-file"),
                              profileFile: profile?.turnPasswordFile)
    }

    /// No sound server is its own kind (`audio-unavailable`, exit status 3 as for any server
    /// that does not answer); every other bad audio flag is a usage error.
    private static func localError(_ error: AudioError, flag: String) -> LocalInputError {
        let converted = ParleyError(error)
        let status = converted.kind == .audioUnavailable ? ExitStatus.notConnected : ExitStatus.usage
        return LocalInputError(error: ParleyError(kind: converted.kind, message: "\(flag): \(error)"), status: status)
    }

    /// A person at a terminal who named neither --play nor --record talks and listens through
    /// the default microphone and speaker, when a sound server answers (docs/audio.md). Returns
    /// the line that tells them which, or why not.
    func applyTerminalDefaults(to options: inout MediaOptions) -> String {
        do {
            try SoundServer.shared.connect()
        } catch {
            return "audio: \(error); sending silence and playing nothing (--play and --record choose otherwise)"
        }
        options.source = .microphone(device: nil, processing: processing)
        let speaker = AudioSinkSpec.speaker(device: nil)
        // checkOutput has already refused a --tee that is not a WAV recording.
        if let tee, let recording = try? AudioSinkSpec(tee) {
            options.sink = .tee([speaker, recording])
        } else {
            options.sink = speaker
        }
        return "audio: default microphone and speaker" + (processing.echoCancellation ? " (echo cancellation on)" : "")
    }

    /// The terminal default for `parley call` and `parley answer`: only for a person (standard
    /// input and error are terminals, no --json, no bot) who named neither --play nor --record.
    func chooseTerminalAudio(_ options: inout MediaOptions, json: Bool, person: Bool, presenter: CallPresenter) {
        guard person, !json, play == nil, record == nil, isatty(0) == 1, isatty(2) == 1 else { return }
        presenter.note(applyTerminalDefaults(to: &options))
        if case .microphone = options.source { presenter.audioLabel = "mic+speaker" }
    }

    private var processing: VoiceProcessing {
        VoiceProcessing(echoCancellation: !noAEC, noiseSuppression: !noNoiseSuppression, gainControl: !noAGC)
    }

    /// `--media` other than webrtc is for SIP peers: Verto and Janus servers speak WebRTC only.
    func checkProfile(speaksSIP: Bool) throws {
        if media != .webrtc, !speaksSIP { throw ValidationError("--media \(media.rawValue) goes with a SIP server") }
    }

    /// Refuses raw audio on standard output when standard output carries the --json lines.
    func checkOutput(json: Bool) throws {
        if let tee {
            guard case .wav = try? AudioSinkSpec(tee) else { throw ValidationError("--tee takes FILE.wav or stereo:FILE.wav, got \"\(tee)\"") }
        }
        guard json, (try? AudioSinkSpec(recordSpec)) == .standardOutput else { return }
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
            options.source = try AudioSourceSpec(playSpec)
            if case .microphone(let device, _) = options.source { options.source = .microphone(device: device, processing: processing) }
            options.sink = try AudioSinkSpec(recordSpec)
            if let tee { options.sink = .tee([options.sink, try AudioSinkSpec(tee)]) }
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
        guard iceTimeout > .zero, iceTimeout <= .seconds(60) else { throw ParleyError(kind: .configuration, message: "--ice-timeout must be between 0 and 60 seconds") }
        guard disruptionTimeout > .zero else { throw ParleyError(kind: .configuration, message: "--disruption-timeout must be positive") }
        guard OpusSettings.complexityRange.contains(opusComplexity) else {
            throw ParleyError(kind: .configuration, message: "--opus-complexity must be between 0 and 10")
        }
        options.opusComplexity = opusComplexity
        options.adaptsOpusComplexity = !fixedOpusComplexity
        guard mediaTimeout >= .zero, mediaTimeout <= .seconds(3600) else { throw ParleyError(kind: .configuration, message: "--media-timeout must be between 0 and 3600 seconds") }
        guard rtpTimeout >= .zero, rtpTimeout <= .seconds(3600) else { throw ParleyError(kind: .configuration, message: "--rtp-timeout must be between 0 and 3600 seconds") }
        options.iceMode = ice == .trickle ? .trickle : .vanilla(collectionTimeout: iceTimeout)
        options.relayOnly = relayOnly
        options.allowedInterfaces = interfaces
        options.ipv6 = !noIPv6
        options.disruptionTimeout = disruptionTimeout
        options.mediaTimeout = mediaTimeout
        options.rtpTimeout = rtpTimeout
        options.dtmfMode = dtmfMode
        options.mediaProfile = media
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
