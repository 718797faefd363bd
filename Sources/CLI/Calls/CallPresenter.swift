import Drivers
import Foundation
import Logging
import Parley
import Locking

/// Shows a call to a person (lines on standard error, a live status line on a terminal) or to a
/// program (`--json` lines on standard output, docs/cli.md's event shapes).
/// Unchecked: `audioLabel` and `logger` are set once before the call starts; the terminal is behind a Lock.
final class CallPresenter: @unchecked Sendable {
    let json: Bool
    let statusLine: Bool
    private struct Terminal {
        var statusShown = false
        /// A destination being typed (after `t` or `c`): shown in place of the live status line.
        var typing: String?
        /// The last status fields, redrawn at the new width when the terminal is resized.
        var fields: [StatusLine.Field] = []
        var width = 80
        /// Columns of the live line as last drawn.
        var drawn = 0
        /// The last error line, not printed twice in a row.
        var lastError: String?
    }

    /// Held while a line is written, so that lines and the status line never interleave.
    private let terminal = Lock(Terminal())
    /// Which devices the call talks and listens through, shown on the status line.
    var audioLabel: String?

    /// Received digits are often PINs: shown (and in --json) only at debug or trace, else counted.
    let revealDigits: Bool
    /// Every call event at debug (ICE states and pair, DTLS profile, media), set once logging is up.
    var logger: Logger?

    init(json: Bool, revealDigits: Bool = false) {
        self.json = json
        self.revealDigits = revealDigits
        statusLine = !json && isatty(2) == 1
        if statusLine {
            terminal.withLock { $0.width = TerminalWidth.current() }
            resizes.watch { [weak self] width in self?.resized(to: width) }
        }
    }

    private let resizes = TerminalWidth()

    /// A terminal that reflows on a resize (tmux, VTE, kitty…) wraps the drawn line over the
    /// rows the new width needs: those above the cursor are cleared too, as progress bars do,
    /// before the line is drawn again at the new width.
    private func resized(to width: Int) {
        let (fields, typing) = terminal.withLock { terminal in
            if terminal.statusShown, terminal.drawn > width {
                let rowsAbove = (terminal.drawn - 1) / width
                FileHandle.standardError.write(Data(("\r\u{1B}[K" + String(repeating: "\u{1B}[1A\u{1B}[2K", count: rowsAbove)).utf8))
            }
            terminal.width = width
            return (terminal.fields, terminal.typing)
        }
        if let typing { showStatus(typing, keepingEnd: true) } else if !fields.isEmpty { showStatus(fields) }
    }

    func note(_ message: String) {
        guard !json else { return }
        line(message)
    }

    /// A warning about this process itself (it is saturated): on standard error with `--json`
    /// too, beside its event, so a person watching a scripted run sees it.
    func processWarning(_ message: String) {
        line(message)
    }

    func state(_ call: String, _ state: CallState) {
        if json {
            JSONEvents.emit("state", StatePayload(call: call, state: state.name, heldBy: state.holder))
        } else if !state.isDone {
            line("call \(short(call)): \(state.name)" + (state.holder.map { " (on hold: \($0))" } ?? ""))
        }
    }

    func event(_ call: String, _ event: CallEvent) {
        logger?.debug("call \(call): \(Self.logText(event))")
        switch event {
        case .state(let state): self.state(call, state)
        case .dtmf(let digit):
            if json {
                JSONEvents.emit("dtmf", DigitPayload(call: call, digit: revealDigits ? String(digit) : nil, direction: "received"))
            } else {
                line("call \(short(call)): received " + (revealDigits ? "digit \(digit)" : "a digit"))
            }
        case .secured(let profile):
            if json { JSONEvents.emit("secured", SecuredPayload(call: call, srtpProfile: profile)) } else { line("call \(short(call)): media secured (\(profile))") }
        case .selectedPair(let pair):
            if json { JSONEvents.emit("ice", PairPayload(call: call, pair: CandidatePairPayload(pair))) } else { line("call \(short(call)): ICE pair \(pair)") }
        case .iceState(let state):
            if json { JSONEvents.emit("ice", ICEStatePayload(call: call, state: state.rawValue)) }
        case .mediaDisrupted:
            if json { JSONEvents.emit("media", MediaPayload(call: call, media: "disrupted")) } else { line("call \(short(call)): no audio arriving (media disrupted)") }
        case .mediaRestored:
            if json { JSONEvents.emit("media", MediaPayload(call: call, media: "restored")) } else { line("call \(short(call)): audio arriving again") }
        case .recovered(let path):
            if json { JSONEvents.emit("recovered", RecoveredPayload(call: call, path: path.rawValue)) } else { line("call \(short(call)): recovered (\(path.rawValue))") }
        case .transfer(let progress):
            transfer(call, progress)
        case .merged(let other):
            merge(call, merged: true, other: other)
        case .unmerged(let other):
            merge(call, merged: false, other: other)
        case .error(let error):
            self.error(error, call: call)
        }
    }

    /// Digits this side sent (after `sendDTMF` returned), one `dtmf` event each, so that a run's
    /// output shows both directions of the conversation.
    func sent(_ call: String, digits: String) {
        for digit in digits {
            if json { JSONEvents.emit("dtmf", DigitPayload(call: call, digit: String(digit), direction: "sent")) } else { line("call \(short(call)): sent digit \(digit)") }
        }
    }

    /// `parley answer` is logged in and can take calls (again, after a reconnection).
    func ready(login: String?) {
        if json { JSONEvents.emit("ready", ReadyPayload(login: login)) }
    }

    /// A call offered to `parley answer`, before it is answered or refused.
    func incoming(_ incoming: IncomingCall) {
        if json {
            JSONEvents.emit("incoming", IncomingPayload(
                call: incoming.id, callerName: incoming.callerName, callerNumber: incoming.callerNumber,
                destination: incoming.calleeNumber ?? incoming.calleeName, headers: incoming.headers.map { HeaderPayload(name: $0.name, value: $0.value) },
                offer: incoming.carriesOffer))
        } else {
            let caller = [incoming.callerName, incoming.callerNumber.map { "<\($0)>" }].compactMap { $0 }.joined(separator: " ")
            let destination = incoming.calleeNumber ?? incoming.calleeName
            line("incoming call \(short(incoming.id)) from \(caller.isEmpty ? "unknown" : caller)" + (destination.map { " to \($0)" } ?? ""))
        }
    }

    /// The client's own reconnection news, not tied to one call.
    func client(_ event: VoiceClientEvent) {
        switch event {
        case .networkLost:
            if json { JSONEvents.emit("network", NetworkPayload(network: "lost", attempt: nil, delayMs: nil)) } else { line("network lost: calls are dropped until it returns") }
        case .reconnecting(let attempt, let delay):
            let milliseconds = Int(delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000)
            if json {
                JSONEvents.emit("network", NetworkPayload(network: "reconnecting", attempt: attempt, delayMs: milliseconds))
            } else {
                line("signalling lost: reconnecting in \(String(format: "%.1f", Double(milliseconds) / 1000)) s (attempt \(attempt))")
            }
        default:
            break
        }
    }

    func error(_ error: ParleyError, call: String? = nil) {
        LogOutput.active.withLock { $0 }?.recordInFile(level: .error, label: "parley", message: (call.map { "call \($0): " } ?? "") + "\(error.code): \(error.message)")
        if json {
            JSONEvents.emit("error", CallErrorPayload(call: call, code: error.code, message: error.message))
        } else {
            // The client's error and the call it ends can carry the same one (reconnecting gave up): one line.
            let text = "error (\(error.code)): \(error.message)"
            guard terminal.withLock({ terminal in
                defer { terminal.lastError = text }
                return terminal.lastError != text
            }) else { return }
            line(text)
        }
    }

    /// What a bot did on a call, and its verdict (docs/bots.md, "Verdicts").
    func bot(_ call: String, _ outcome: BotOutcome, verdict: BotVerdict) {
        if json {
            let (failedStep, reason) = (verdict.failure?.step, verdict.failure?.reason)
            JSONEvents.emit("bot", BotPayload(call: call, steps: outcome.steps, stepsOmitted: outcome.stepsOmitted > 0 ? outcome.stepsOmitted : nil,
                                               digits: revealDigits ? String(outcome.digits) : nil,
                                               digitCount: outcome.digitsReceived, recordings: outcome.recordings.map(\.path),
                                               ending: outcome.ending.description,
                                               verdict: verdict.name, failedStep: failedStep, reason: reason))
        } else {
            let count = outcome.digitsReceived
            let digits = revealDigits ? "digits \(String(outcome.digits))" : "\(count) digit\(count == 1 ? "" : "s")"
            line("call \(short(call)): bot finished (\(outcome.ending)): steps \(outcome.stepsText(separator: " > ")), \(digits)")
            line("call \(short(call)): verdict \(verdict)")
        }
    }

    func stats(_ call: String, _ statistics: CallStatistics, quality: CallQualityMonitor.Update? = nil) {
        guard json else { return }
        JSONEvents.emit("stats", StatsPayload(call: call, audio: statistics.audio, candidatePair: statistics.candidatePair.map(CandidatePairPayload.init),
                                               mos: quality?.mos.map(Self.rounded), quality: quality?.quality?.rawValue,
                                               lossPercent: quality?.lossPercent.map(Self.rounded)))
    }

    /// A quality warning raised (`warning`) or cleared (`warning-cleared`).
    func warning(_ call: String, _ change: QualityWarningChange) {
        let value = Self.rounded(change.value)
        if json {
            JSONEvents.emit(change.raised ? "warning" : "warning-cleared", QualityWarningPayload(call: call, name: change.warning.rawValue, value: value))
        } else {
            line("call \(short(call)): \(change.raised ? "warning" : "cleared"): \(change.warning.rawValue) (\(value))")
        }
    }

    func ended(_ call: String, _ reason: TerminationReason, statistics: CallStatistics, record: CallRecord? = nil) {
        if json {
            JSONEvents.emit("ended", EndedPayload(call: call, reason: reason, record: record))
            return
        }
        line("call \(short(call)): ended: \(reason)")
        if let record, let mosMean = record.mosMean, let mosMin = record.mosMin {
            line(String(format: "  MOS mean %.2f, min %.2f; warnings: %@", mosMean, mosMin,
                        record.warningsRaised.isEmpty ? "none" : record.warningsRaised.map(\.rawValue).joined(separator: ", ")))
        }
        if let audio = statistics.audio {
            line(String(format: "  %@: sent %d packets, received %d, lost %d, jitter %.1f ms, rtt %@, concealed %.1f%%",
                        audio.codec, audio.packetsSent, audio.packetsReceived, audio.packetsLost, audio.jitterMs,
                        audio.rttMs.map { String(format: "%.1f ms", $0) } ?? "n/a",
                        audio.totalSamplesPlayed > 0 ? 100 * Double(audio.concealedSamples) / Double(audio.totalSamplesPlayed) : 0))
        }
    }

    /// The live line on a terminal: state, duration, codec, loss, jitter, RTT, two meters, the
    /// MOS, the devices and the keys, as many as the terminal's width holds (`StatusLine`).
    func status(_ state: CallState, elapsed: Duration, statistics: CallStatistics, quality: CallQualityMonitor.Update?, muted: Bool) {
        guard statusLine else { return }
        if let typing = terminal.withLock({ $0.typing }) { return showStatus(typing, keepingEnd: true) }
        showStatus(Self.statusFields(state, elapsed: elapsed, audio: statistics.audio, quality: quality, audioLabel: audioLabel, muted: muted))
    }

    static func statusFields(_ state: CallState, elapsed: Duration, audio: MediaStatistics?, quality: CallQualityMonitor.Update?,
                             audioLabel: String?, muted: Bool) -> [StatusLine.Field] {
        typealias Field = StatusLine.Field
        typealias Rank = StatusLine.Rank
        let seconds = Int(elapsed.components.seconds)
        var fields = [Field(text: String(format: "%@ %02d:%02d", state.name, seconds / 60, seconds % 60), keep: Rank.always)]
        if let audio {
            fields += [
                Field(text: audio.codec, keep: Rank.codec),
                Field(text: "loss \(audio.packetsLost)", keep: Rank.loss),
                Field(text: String(format: "jitter %.0fms", audio.jitterMs), keep: Rank.jitter),
                Field(text: "rtt " + (audio.rttMs.map { String(format: "%.0fms", $0) } ?? "-"), keep: Rank.rtt),
                Field(text: "in " + meter(audio.audioLevel), keep: Rank.inMeter),
                // Held, nothing is sent whatever the source's level.
                Field(text: "out " + (state.isHeld ? "-----" : meter(audio.localAudioLevel)), keep: Rank.outMeter),
            ]
        }
        if let mos = quality?.mos, let word = quality?.quality {
            fields += [Field(text: String(format: "MOS %.1f", mos), keep: Rank.mos), Field(text: word.rawValue, keep: Rank.qualityWord)]
        }
        if let audioLabel { fields.append(Field(text: audioLabel, keep: Rank.devices)) }
        if muted { fields.append(Field(text: "MUTED", keep: Rank.always)) }
        fields.append(Field(text: " " + CallKey.statusText, keep: Rank.keys, short: (" " + CallKey.statusHint, Rank.keysHint)))
        return fields
    }

    /// Replaces the live line on a terminal with the fields that fit; the next `line` clears it first.
    func showStatus(_ fields: [StatusLine.Field]) {
        guard statusLine else { return }
        terminal.withLock { terminal in
            terminal.fields = fields
            terminal.statusShown = true
            let text = StatusLine.fit(fields, width: terminal.width)
            terminal.drawn = text.count
            FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
        }
    }

    /// Replaces the live line with `text`, cut at the terminal's width (a prompt and what is typed
    /// keep their end, where the typing is).
    func showStatus(_ text: String, keepingEnd: Bool = false) {
        guard statusLine else { return }
        terminal.withLock { terminal in
            terminal.statusShown = true
            let text = StatusLine.cut(text, width: terminal.width, keepingEnd: keepingEnd)
            terminal.drawn = text.count
            FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
        }
    }

    /// Shows `text` (a prompt and what is typed so far) instead of the status until nil.
    func showTyping(_ text: String?) {
        terminal.withLock { $0.typing = text }
        if let text { showStatus(text, keepingEnd: true) }
    }

    /// Removes the live line, if one is shown.
    func clearStatus() {
        terminal.withLock { terminal in
            if terminal.statusShown { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            terminal.statusShown = false
        }
    }

    static func meter(_ level: Double) -> String {
        let filled = max(0, min(5, Int((level * 5 * 4).rounded())))
        return String(repeating: "#", count: filled) + String(repeating: ".", count: 5 - filled)
    }

    /// One line of news; on a terminal broken at spaces to its width (`LineWrap`).
    private func line(_ message: String) {
        terminal.withLock { terminal in
            let clear = terminal.statusShown ? "\r\u{1B}[K" : ""
            terminal.statusShown = false
            let text = statusLine ? message.split(separator: "\n", omittingEmptySubsequences: false)
                .flatMap { LineWrap.lines(String($0), width: terminal.width) }.joined(separator: "\n") : message
            FileHandle.standardError.write(Data((clear + text + "\n").utf8))
        }
    }

    /// The keys a call answers, once when it starts on a terminal and again on `?`: the status
    /// line keeps only its `[? keys]` hint below ~160 columns.
    func keyReminder() {
        guard statusLine else { return }
        line(CallKey.statusText)
    }

    /// The codec and payload type a call settled on, once it is active (debug).
    func negotiated(_ call: String, _ statistics: CallStatistics) {
        guard let audio = statistics.audio else { return }
        logger?.debug("call \(call): sending and receiving \(audio.codec), payload type \(audio.payloadType)")
    }

    private static func logText(_ event: CallEvent) -> String {
        switch event {
        case .state(let state): "state \(state.name)"
        case .dtmf(let digit): "received digit \(digit)"
        case .iceState(let state): "ICE \(state.rawValue)"
        case .selectedPair(let pair): "ICE selected pair \(pair)"
        case .secured(let profile): "DTLS done, SRTP profile \(profile)"
        case .mediaDisrupted: "no RTP arriving (disrupted)"
        case .mediaRestored: "RTP arriving again"
        case .recovered(let path): "recovered by \(path.rawValue)"
        case .transfer(let progress): "transfer \(progress)"
        case .merged(let other): "merged with call \(other)"
        case .unmerged(let other): "split from call \(other)"
        case .error(let error): "error \(error.code): \(error.message)"
        }
    }

    private func short(_ call: String) -> String { String(call.prefix(8)) }

    /// Two decimals are all a MOS or a millisecond figure means.
    static func rounded(_ value: Double) -> Double { (value * 100).rounded() / 100 }
}

struct StatePayload: Encodable {
    let call: String
    let state: String
    /// Who holds the call (`local`, `remote`, `both`), in a held state only.
    var heldBy: String? = nil
}
struct ReadyPayload: Encodable { let login: String? }
struct HeaderPayload: Encodable { let name: String; let value: String }
struct IncomingPayload: Encodable {
    let call: String
    let callerName: String?
    let callerNumber: String?
    let destination: String?
    let headers: [HeaderPayload]
    /// False for a SIP INVITE without SDP (a delayed offer): answering it sends our offer.
    let offer: Bool
}
/// `digit` is absent for a digit received unless secrets are revealed (received digits may be
/// PINs); `direction`: "sent" or "received".
struct DigitPayload: Encodable { let call: String; let digit: String?; let direction: String }
struct SecuredPayload: Encodable { let call: String; let srtpProfile: String }
struct ICEStatePayload: Encodable { let call: String; let state: String }
struct PairPayload: Encodable { let call: String; let pair: CandidatePairPayload }
struct MediaPayload: Encodable { let call: String; let media: String }
struct RecoveredPayload: Encodable { let call: String; let path: String }
struct NetworkPayload: Encodable { let network: String; let attempt: Int?; let delayMs: Int? }
struct CallErrorPayload: Encodable { let call: String?; let code: String; let message: String }
struct StatsPayload: Encodable {
    let call: String
    let audio: MediaStatistics?
    let candidatePair: CandidatePairPayload?
    var mos: Double? = nil
    var quality: String? = nil
    /// Loss of the received stream over the last 5 s.
    var lossPercent: Double? = nil
}
struct QualityWarningPayload: Encodable { let call: String; let name: String; let value: Double }
struct BotPayload: Encodable {
    let call: String
    let steps: [String]
    /// Steps visited between the first and the second half of `steps`, when some were left out.
    let stepsOmitted: Int?
    let digits: String?
    let digitCount: Int
    let recordings: [String]
    let ending: String
    /// "passed", "failed" or "aborted"; the other two name the step and say why.
    let verdict: String
    let failedStep: String?
    let reason: String?
}
/// `reason` and `record` encode themselves (TerminationReason+Encodable.swift, CallRecord.swift).
struct EndedPayload: Encodable { let call: String; let reason: TerminationReason; var record: CallRecord? = nil }
/// `transfer`: "requested", "completed", "failed" (with `reason`) or "transferred" (we were sent on);
/// over SIP also "redirected" (`reason`: the 3xx) and "redirect-not-followed" (`reason`: why).
struct TransferPayload: Encodable { let call: String; let transfer: String; let destination: String; let reason: String? }

struct CandidatePairPayload: Encodable {
    let local: String
    let localType: String
    let remote: String
    let remoteType: String
    let transport: String
    let rttMs: Double?

    init(_ pair: ICESelectedPair) {
        local = "\(pair.localAddress):\(pair.localPort)"
        localType = pair.localType.rawValue
        remote = "\(pair.remoteAddress):\(pair.remotePort)"
        remoteType = pair.remoteType.rawValue
        transport = pair.transport.rawValue
        rttMs = pair.roundTripTime.map { Double($0.components.attoseconds) / 1e15 + Double($0.components.seconds) * 1000 }
    }
}
