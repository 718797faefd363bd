import Foundation
import Logging
import Parley

/// What became of one call of a load run.
struct LoadCallResult: Sendable {
    /// The order in which the call was attempted, from 1.
    let index: Int
    let callID: String?
    /// Active at some point.
    let answered: Bool
    /// Answered and kept up for the whole hold, then hung up by us.
    let held: Bool
    /// Why the call counts as failed (nil: it did not): an error code, the far end's cause, or
    /// `ended-early` / `interrupted` for an answered call that did not last the hold.
    let failure: String?
    /// From dialing to active, and to the first RTP packet received from the far end.
    let setupMs: Int?
    let firstAudioMs: Int?
    /// The other phases of setup, each from dialing: the offer sent (dial returned), ICE
    /// connected, DTLS finished (docs/performance.md, "Call setup").
    var phases = LoadCallPhases()
    let reason: TerminationReason?
    let audio: MediaStatistics?
    /// With `--bot`: what the bot made of the call.
    var verdict: BotVerdict? = nil
    /// The E-model MOS and the loss (percent) over the whole call, when it received RTP.
    var quality: LoadCallQuality? = nil
    /// From dialing to the end of the call.
    var seconds = 0.0
}

/// A call's quality over its whole length: what `--min-mos` and `--max-loss` judge.
struct LoadCallQuality: Sendable {
    let mos: Double
    let lossPercent: Double

    init?(_ audio: MediaStatistics?) {
        guard let audio, audio.packetsReceived > 0 else { return nil }
        lossPercent = 100 * Double(audio.packetsLost) / Double(audio.packetsLost + audio.packetsReceived)
        let model = EModel(codec: .forCodec(audio.codec, fec: audio.fecNegotiated))
        mos = model.mos(lossPercent: lossPercent, oneWayDelayMs: (audio.rttMs ?? 0) / 2 + audio.jitterBufferDelayMs)
    }
}

/// Milliseconds from dialing to each phase of a call's setup that the signalled answer does not
/// show; nil for a phase the call never reached.
struct LoadCallPhases: Sendable {
    var inviteMs: Int?
    var iceMs: Int?
    var dtlsMs: Int?

    /// Notes the first ICE connection and the end of the DTLS handshake among a call's events.
    mutating func note(_ event: CallEvent, at milliseconds: Int) {
        switch event {
        case .iceState(.connected), .iceState(.completed): if iceMs == nil { iceMs = milliseconds }
        case .secured: if dtlsMs == nil { dtlsMs = milliseconds }
        default: break
        }
    }
}

/// One call of `parley load`: dial, wait for the answer, send the digits, hold, hang up, and
/// report the timings and the call's statistics. Written against the public `VoiceClient` and
/// `Call` API only: dial, events, statistics, hangup.
struct LoadCall {
    let index: Int
    let destination: String
    let options: DialOptions
    let hold: Duration
    let dtmf: String?
    let presenter: CallPresenter
    /// Runs on the call once it is active, instead of the hold and the digits.
    let bot: BotRunner?
    let logger: Logger
    /// The program each call streams to during its hold (docs/agents.md).
    var agent: AgentEndpoint? = nil

    func run(on client: VoiceClient, run: LoadRun) async -> LoadCallResult {
        var session: AgentSession?
        if let agent {
            do {
                session = try await AgentSession.connect(agent)
            } catch {
                presenter.error(error)
                return LoadCallResult(index: index, callID: nil, answered: false, held: false, failure: error.code, setupMs: nil, firstAudioMs: nil,
                                      reason: nil, audio: nil)
            }
        }
        let dialed = ContinuousClock.now
        let call: Call
        do {
            call = try await client.dial(destination, options: options)
        } catch {
            await session?.abandon(cause: "NOT_PLACED")
            presenter.error(error)
            CallMetrics.dialFailed(error.code)
            return LoadCallResult(index: index, callID: nil, answered: false, held: false, failure: error.code, setupMs: nil, firstAudioMs: nil,
                                  reason: nil, audio: nil, seconds: (ContinuousClock.now - dialed).inSeconds)
        }
        var phases = LoadCallPhases(inviteMs: Self.milliseconds(ContinuousClock.now - dialed))
        await run.track(index, call)
        CallMetrics.callStarted(.outgoing)
        // Unstructured: times the first packet while the call runs; awaited or cancelled when it ends.
        let firstAudio = Task {
            let milliseconds = await Self.firstPacket(of: call, since: dialed)
            // Into the metrics as it comes, so that a scrape during the run sees the calls up.
            if let milliseconds { CallMetrics.firstAudio(.outgoing, .milliseconds(milliseconds)) }
            return milliseconds
        }
        let traffic = MetricsEndpoint.enabled ? LoadTrafficWatch(call: call) : nil
        if let traffic { LoadTrafficWatch.sampler.add(traffic) }
        var setupMs: Int?
        var holding: Task<Bool, Never>?
        var botRun: Task<BotOutcome, Never>?
        var agentRun: Task<Void, Never>?
        for await event in call.events {
            session?.note(event)
            phases.note(event, at: Self.milliseconds(ContinuousClock.now - dialed))
            guard case .state(let state) = event else {
                switch event {
                case .error(let error): presenter.error(error, call: call.id)
                case .recovered(let path):
                    CallMetrics.recovered(path)
                    // A run through network changes (make soak) counts the calls that recover.
                    presenter.event(call.id, event)
                default: break
                }
                continue
            }
            if state == .dropped || state == .reconnecting { presenter.state(call.id, state) }
            if state == .active, setupMs == nil {
                let setup = Self.milliseconds(ContinuousClock.now - dialed)
                setupMs = setup
                CallMetrics.setup(.outgoing, .milliseconds(setup))
                await run.answered(setupMs: setup)
                if let session {
                    // Unstructured: streams the call to the agent while the loop goes on reading events; awaited at the end.
                    agentRun = Task { [destination, options] in
                        await AgentCalls.stream(session, call: call, from: options.callerNumber, to: destination, headers: options.headers)
                    }
                }
                if let bot {
                    // Unstructured: runs the bot while the loop goes on reading events; awaited at the end.
                    botRun = Task { [logger] in await call.runBot(bot, logger: logger) }
                    continue
                }
                // Unstructured: sends DTMF and holds while the loop goes on reading events; cancelled and awaited at the end.
                holding = Task { [dtmf, hold, presenter] in
                    if let dtmf {
                        do throws(ParleyError) { try await call.sendDTMF(dtmf) } catch { presenter.error(error, call: call.id) }
                    }
                    do { try await Task.sleep(for: hold) } catch { return false }
                    await call.hangup()
                    return true
                }
            }
            if state.isDone { break }
        }
        let reason = await call.waitUntilDone()
        if agentRun == nil { await session?.abandon(cause: reason.cause ?? "NOT_ANSWERED") }
        await agentRun?.value
        // The program may end its call before the hold does: our own clean hang-up is a held call.
        let callFailure = await call.failure
        let agentEnded = session != nil && reason.localStatus == .endedByLocalUser && callFailure == nil
        holding?.cancel()
        firstAudio.cancel()
        let held = await holding?.value ?? false || agentEnded
        // Ctrl-C hung the call up under its bot: the test was cut short, not failed by the far end.
        // Any call still up when the run stopped ended because of the stop, whichever side's bye
        // the call saw first (the far end may answer our hangup with its own).
        let stoppedBy = await run.isStopping ? "interrupted (Ctrl-C)" : nil
        let verdict = await botRun?.value.verdict(callingSide: true, stoppedBy: stoppedBy)
        if let verdict { CallMetrics.botVerdict(verdict) }
        let firstAudioMs = await firstAudio.value
        await run.untrack(index)
        let audio = await call.statistics().audio
        let quality = LoadCallQuality(audio)
        // The traffic not yet counted, and the call's MOS (the E-model over its whole loss and
        // delay), which only a whole call has.
        traffic?.finish(audio)
        CallMetrics.callEnded(.outgoing, reason: reason, mos: quality?.mos, lossPercent: quality?.lossPercent,
                              jitterMs: audio.flatMap { $0.packetsReceived > 0 ? $0.jitterMs : nil })
        var failure: String?
        if reason.localStatus == .noMedia {
            // No media is a failure even when the hold ran out first (docs/cli.md).
            failure = TerminationReason.LocalStatus.noMedia.rawValue
        } else if let verdict {
            switch verdict {
            case .passed: break
            case .failed: failure = "bot-failed"
            case .aborted: failure = "interrupted"
            }
        } else if !held {
            if let error = await call.failure {
                failure = error.code
            } else if setupMs == nil {
                // Hung up by Ctrl-C while ringing: our own hangup, not the far end's clearing.
                let stopped = await run.isStopping && reason.localStatus == .endedByLocalUser
                failure = stopped ? "interrupted" : reason.cause ?? reason.localStatus?.rawValue ?? "NOT_ANSWERED"
            } else {
                failure = await run.isStopping ? "interrupted" : "ended-early"
            }
        }
        return LoadCallResult(index: index, callID: call.id, answered: setupMs != nil, held: held, failure: failure, setupMs: setupMs,
                              firstAudioMs: firstAudioMs, phases: phases, reason: reason, audio: audio, verdict: verdict, quality: quality,
                              seconds: (ContinuousClock.now - dialed).inSeconds)
    }

    /// Milliseconds from dialing to the arrival of the first RTP packet from the far end, nil
    /// when none arrived within 30 s. Awaits the media session's report, which ends with the
    /// call at the latest: no statistics are polled (docs/performance.md, "Call setup").
    static func firstPacket(of call: Call, since dialed: ContinuousClock.Instant) async -> Int? {
        guard let arrival = await call.firstPacketArrival(), arrival - dialed <= .seconds(30) else { return nil }
        return milliseconds(arrival - dialed)
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
