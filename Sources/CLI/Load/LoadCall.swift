import Drivers
import Foundation
import Locking
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

/// What a load call's events told so far: the setup phases, and the time to `active`. Shared by
/// the driver's `observe`, which notes each event, and its `whenActive` and the call's end.
final class LoadCallProgress: Sendable {
    private struct State {
        var phases: LoadCallPhases
        var setupMs: Int?
    }

    private let state: Lock<State>

    init(_ phases: LoadCallPhases) {
        state = Lock(State(phases: phases))
    }

    /// Notes `event`, seen `milliseconds` after dialing; returns the setup time at the first `active`.
    func note(_ event: CallEvent, at milliseconds: Int) -> Int? {
        state.withLock { state in
            state.phases.note(event, at: milliseconds)
            guard case .state(.active) = event, state.setupMs == nil else { return nil }
            state.setupMs = milliseconds
            return milliseconds
        }
    }

    var phases: LoadCallPhases { state.withLock { $0.phases } }
    var setupMs: Int? { state.withLock { $0.setupMs } }
}

/// One call of `parley load`: dial, wait for the answer, send the digits, hold, hang up, and
/// report the timings and the call's statistics. Written against the public `VoiceClient` (or
/// `SIPPhone`) and `Call` API only: dial, events, statistics, hangup.
struct LoadCall {
    /// Places one call: a Verto login's `VoiceClient.dial` or a SIP account's `SIPPhone.dial`.
    typealias Dial = @Sendable (_ destination: String, _ options: DialOptions) async throws(ParleyError) -> Call

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

    func run(dialing dial: Dial, run: LoadRun) async -> LoadCallResult {
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
        var options = options
        // The call's audio at the program's rate: Opus runs at it, nothing resamples.
        if let session { options.media?.audioRate = session.callAudioRate }
        let dialed = ContinuousClock.now
        let call: Call
        do {
            call = try await dial(destination, options)
        } catch {
            await session?.abandon(cause: "NOT_PLACED")
            presenter.error(error)
            CallMetrics.dialFailed(error.code)
            return LoadCallResult(index: index, callID: nil, answered: false, held: false, failure: error.code, setupMs: nil, firstAudioMs: nil,
                                  reason: nil, audio: nil, seconds: (ContinuousClock.now - dialed).inSeconds)
        }
        let progress = LoadCallProgress(LoadCallPhases(inviteMs: Self.milliseconds(ContinuousClock.now - dialed)))
        await run.track(index, call)
        CallMetrics.callStarted(.outgoing)
        let traffic = MetricsEndpoint.enabled ? LoadTrafficWatch(call: call) : nil
        if let traffic { LoadTrafficWatch.sampler.add(traffic) }
        let outcome = await driver(for: call, dialed: dialed, session: session, progress: progress, run: run).run()
        let reason = outcome.reason
        if let counters = outcome.agentCounters { AgentCalls.report(counters, call: call.id) }
        // The program may end its call before the hold does: our own clean hang-up is a held call.
        let callFailure = await call.failure
        let agentEnded = session != nil && reason.localStatus == .endedByLocalUser && callFailure == nil
        let held = outcome.timerHungUp || agentEnded
        let verdict = outcome.verdict
        let (phases, setupMs) = (progress.phases, progress.setupMs)
        // The call has ended: its first packet, if any, is known at once.
        let firstAudioMs = await Self.firstPacket(of: call, since: dialed)
        await run.untrack(index)
        let audio = await call.statistics().audio
        let quality = LoadCallQuality(audio)
        // The traffic not yet counted, and the call's MOS (the E-model over its whole loss and
        // delay), which only a whole call has.
        traffic?.finish(audio)
        CallMetrics.callEnded(.outgoing, reason: reason, mos: quality?.mos, lossPercent: quality?.lossPercent,
                              jitterMs: audio.flatMap { $0.packetsReceived > 0 ? $0.jitterMs : nil })
        let failure = await Self.failure(of: call, reason: reason, verdict: verdict, held: held, answered: setupMs != nil, run: run)
        return LoadCallResult(index: index, callID: call.id, answered: setupMs != nil, held: held, failure: failure, setupMs: setupMs,
                              firstAudioMs: firstAudioMs, phases: phases, reason: reason, audio: audio, verdict: verdict, quality: quality,
                              seconds: (ContinuousClock.now - dialed).inSeconds)
    }

    /// The call's children: what its events say, its agent or bot, its digits and its hold.
    private func driver(for call: Call, dialed: ContinuousClock.Instant, session: AgentSession?, progress: LoadCallProgress,
                        run: LoadRun) -> CallDriver {
        var driver = CallDriver(call: call)
        driver.observe = { [presenter] event in
            let setup = progress.note(event, at: Self.milliseconds(ContinuousClock.now - dialed))
            if let setup { CallMetrics.setup(.outgoing, .milliseconds(setup)) }
            switch event {
            case .error(let error): presenter.error(error, call: call.id)
            case .recovered(let path):
                CallMetrics.recovered(path)
                // A run through network changes (make soak) counts the calls that recover.
                presenter.event(call.id, event)
            case .state(let state) where state == .dropped || state == .reconnecting: presenter.state(call.id, state)
            default: break
            }
        }
        if let session {
            driver.agent = CallDriver.Agent(session: session, from: options.callerNumber, to: destination, headers: options.headers) { reason in
                reason.cause ?? "NOT_ANSWERED"
            }
        }
        if let bot {
            driver.bot = CallDriver.Bot(runner: bot, logger: logger) { outcome in
                // A signal hung the call up under its bot: the test was cut short, not failed by the far end.
                // Any call still up when the run stopped ended because of the stop, whichever side's bye
                // the call saw first (the far end may answer our hangup with its own).
                _ = await call.waitUntilDone()
                let verdict = outcome.verdict(callingSide: true, stoppedBy: await run.stopReason)
                CallMetrics.botVerdict(verdict)
                return verdict
            }
        }
        driver.whenActive = { [dtmf, presenter, bot] in
            if let setup = progress.setupMs { await run.answered(setupMs: setup) }
            guard bot == nil, let dtmf else { return }
            do throws(ParleyError) { try await call.sendDTMF(dtmf) } catch { presenter.error(error, call: call.id) }
        }
        // Without a bot, the call is held for `hold` once active (after the digits), then hung up.
        if bot == nil { driver.hangUp(after: hold) }
        // Into the metrics as it comes, so that a scrape during the run sees the calls up.
        driver.add {
            if let milliseconds = await Self.firstPacket(of: call, since: dialed) { CallMetrics.firstAudio(.outgoing, .milliseconds(milliseconds)) }
        }
        return driver
    }

    /// Why the call counts as failed, nil when it does not (LoadCallResult.failure).
    private static func failure(of call: Call, reason: TerminationReason, verdict: BotVerdict?, held: Bool, answered: Bool,
                                run: LoadRun) async -> String? {
        if reason.localStatus == .noMedia {
            // No media is a failure even when the hold ran out first (docs/cli.md).
            return TerminationReason.LocalStatus.noMedia.rawValue
        } else if let verdict {
            switch verdict {
            case .passed: break
            case .failed: return "bot-failed"
            case .aborted: return "interrupted"
            }
        } else if !held {
            if let error = await call.failure {
                return error.code
            } else if !answered {
                // Hung up by Ctrl-C while ringing: our own hangup, not the far end's clearing.
                let stopped = await run.isStopping && reason.localStatus == .endedByLocalUser
                return stopped ? "interrupted" : reason.cause ?? reason.localStatus?.rawValue ?? "NOT_ANSWERED"
            } else {
                return await run.isStopping ? "interrupted" : "ended-early"
            }
        }
        return nil
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
