import ICE
import Logging
import Media
import Signaling

/// One call, outgoing or incoming, in any dialect: its state machine, its media, and its
/// signalling (`CallSignalling`: Verto through a `VoiceClient`, or Janus through `Call.janus`).
/// Every operation checks the state first (docs/calls.md); a refused one throws and changes nothing.
public actor Call {
    public nonisolated let id: String
    public nonisolated let direction: CallDirection
    /// The number or name we dialled, or the caller of an incoming call.
    public nonisolated let remoteParty: String
    public nonisolated let events: AsyncStream<CallEvent>
    /// The digits the far end presses, for bots and scripts; ends with the call.
    public nonisolated let digits: AsyncStream<Character>

    let eventSink: AsyncStream<CallEvent>.Continuation
    private let digitSink: AsyncStream<Character>.Continuation
    let signalling: any CallSignalling
    let logger: Logger
    var mediaOptions: MediaOptions
    var machine: CallStateMachine
    private var publishedState: CallState
    /// When the call was dialled, rang, was answered and ended, for its record.
    public private(set) var timeline = CallTimeline()
    private var finished = false
    var leg: MediaLeg?
    /// What the media leg has shown of the path (Call+Media.swift).
    var mediaPath = MediaPath()
    /// Its network recovery (Call+Recovery.swift).
    var recovery: CallRecovery
    /// Its trickle, held candidates and early answer.
    var negotiation = CallNegotiation()
    /// Its ring and media timers and its leg's event pump.
    var timers = CallTimers()
    /// The call this one is merged with, and their crossed audio (Call+Merge.swift).
    var merged: (partner: Call, audio: AudioMerge)?
    private var doneWaiters: [CheckedContinuation<TerminationReason, Never>] = []
    /// The first packet and first audible frame from the far end, and who awaits them
    /// (Call+FirstMedia.swift).
    var firstMedia = FirstMedia()
    /// The error that ended the call, when one did.
    public private(set) var failure: ParleyError?
    /// The other members of a conference the call joined (a Janus AudioBridge room), by the
    /// server's id: their display names.
    public private(set) var participants: [Int: String] = [:]
    private let onEnd: (@Sendable (String) async -> Void)?
    /// Asked to recover the call when its media path fails after it was answered; nil ends the
    /// call instead.
    let onPathLost: (@Sendable (Call) async -> Void)?

    init(id: String, direction: CallDirection, remoteParty: String, signalling: any CallSignalling, media: MediaOptions,
         logger: Logger, reconnectTimeout: Duration = .seconds(60), onPathLost: (@Sendable (Call) async -> Void)? = nil,
         onEnd: (@Sendable (String) async -> Void)? = nil) {
        self.id = id
        self.direction = direction
        self.remoteParty = remoteParty
        self.signalling = signalling
        self.mediaOptions = media
        self.logger = logger
        self.onEnd = onEnd
        self.onPathLost = onPathLost
        recovery = CallRecovery(reconnectTimeout: reconnectTimeout)
        machine = CallStateMachine(direction: direction)
        publishedState = machine.state
        timeline.note(machine.state, direction: direction)
        (events, eventSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1024))
        (digits, digitSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
        eventSink.yield(.state(machine.state))
    }

    public var state: CallState { machine.state }

    /// Our candidates are trickled: trickle mode, toward a peer that opted in (an incoming
    /// invite's `trickle` flag; for a call we dial, until an answer without it).
    var trickle: Bool { negotiation.trickles(in: mediaOptions.iceMode) }

    /// The call was answered at some point: from then on it should have media.
    var answered: Bool { machine.wasAnswered }
    public var isMuted: Bool { machine.muted }

    public var terminationReason: TerminationReason? {
        if case .done(let reason) = machine.state { return reason }
        return nil
    }

    /// Waits until the call is over and returns why it ended.
    public func waitUntilDone() async -> TerminationReason {
        if let terminationReason { return terminationReason }
        return await withCheckedContinuation { doneWaiters.append($0) }
    }

    // MARK: Operations

    /// Ends the call. Without a `cause`, the SDKs' choice: `USER_BUSY` (17) before the call was
    /// answered (a caller who gives up while it rings, a callee who declines), `NORMAL_CLEARING`
    /// (16) after (docs/verto-protocol.md §5.6).
    public func hangup(cause: HangupCause? = nil) async {
        guard !machine.state.isDone else { return }
        let cause = cause ?? (answered ? .normalClearing : .userBusy)
        machine.hangupCause = cause
        try? machine.begin(.hangup)
        // The bye leaves before anyone waiting on the call learns it ended (and, say, closes
        // the socket under it).
        await signalling.hangup(callID: id, cause: cause)
        await finish()
    }

    public func hold() async throws(ParleyError) {
        try await holdRequest(.hold)
    }

    public func unhold() async throws(ParleyError) {
        try await holdRequest(.unhold)
    }

    /// Sends silence instead of the source while muted; the stream stays alive.
    public func mute() async throws(ParleyError) {
        try begin(.mute)
        await leg?.setMuted(true)
    }

    public func unmute() async throws(ParleyError) {
        try begin(.unmute)
        await leg?.setMuted(false)
    }

    /// Sends digits as `MediaOptions.dtmfMode` says: RFC 4733 events (out of band when the far
    /// end did not negotiate telephone-event), out of band only, or both.
    public func sendDTMF(_ digits: String) async throws(ParleyError) {
        guard !digits.isEmpty, digits.allSatisfy({ DTMFDigit($0) != nil }) else {
            throw ParleyError(kind: .configuration, message: "\"\(digits)\" is not a DTMF digit string (0-9 * # A-D)")
        }
        try begin(.dtmf)
        defer { machine.finish(.dtmf, succeeded: true) }
        let inRTP = if let leg { await leg.canSendTelephoneEvents } else { false }
        let mode = mediaOptions.dtmfMode
        if inRTP, mode != .info, let leg { try await leg.sendDTMF(digits) }
        if mode != .rfc4733 || !inRTP { try await signalling.sendDTMF(callID: id, digits: digits) }
    }

    public func statistics() async -> CallStatistics {
        await leg?.statistics() ?? CallStatistics()
    }

    // MARK: Driven by the client

    /// Outgoing: gathers, offers and sends the invite (an invite without an offer for
    /// `options.delayedOffer`: Call+DelayedOffer.swift). The call is dialing when this returns
    /// (active at once when the dialect answers in its reply and media is secured).
    func dial(destination: String, options: DialOptions) async throws(ParleyError) {
        try begin(.dial)
        startRingTimer(options.ringTimeout)
        if options.delayedOffer { return try await dialWithoutOffer(destination: destination, options: options) }
        let leg = try await prepare(role: .controlling, withoutICE: mediaOptions.mediaProfile.isWithoutICE)
        do {
            let offer = try await leg.makeOffer()
            try ensureLive(sending: "invite")
            let answer = try await signalling.invite(callID: id, destination: destination, options: options, sdp: offer, trickle: trickle)
            if let answer {
                try ensureLive(sending: "candidates")
                try await leg.applyAnswer(answer)
                negotiation.answeredInReply()
            }
        } catch {
            await fail(error)
            throw error
        }
        await signalledCall()
    }

    /// Incoming: answers `offer` with our media (the media already running when we sent it
    /// early) and tells the server. A caller that did not opt in to trickle (`peerTrickles`
    /// false) gets an answer that carries our candidates.
    func answer(offer: String, media: MediaOptions?, peerTrickles: Bool = true) async throws(ParleyError) {
        try begin(.answer)
        do {
            let answer: String
            if let earlyAnswer = negotiation.earlyAnswer { answer = earlyAnswer } else { answer = try await localAnswer(to: offer, media: media, peerTrickles: peerTrickles) }
            try ensureLive(sending: "answer")
            try await signalling.answer(callID: id, sdp: answer, trickle: trickle)
        } catch {
            await answerFailed(error)
            throw error
        }
        await answerSucceeded()
    }

    /// The answer could not be made or sent: the call ends, the caller told why.
    func answerFailed(_ error: ParleyError) async {
        machine.finish(.answer, succeeded: false)
        // Out of descriptors is this process's passing state, not a mismatch with the offer.
        let refusal: HangupCause = error.kind == .outOfFileDescriptors ? .normalTemporaryFailure : .incompatibleDestination
        await fail(error, telling: refusal)
    }

    func answerSucceeded() async {
        machine.finish(.answer, succeeded: true)
        await apply(.answered)
        await signalledCall()
    }

    /// Our media for `offer`, started: a new media leg and its answer SDP.
    func localAnswer(to offer: String, media: MediaOptions?, peerTrickles: Bool) async throws(ParleyError) -> String {
        if let media { mediaOptions = media }
        negotiation.peerTrickles(peerTrickles)
        let leg = try await prepare(role: .controlled, withoutICE: MediaLeg.isWithoutICE(offer: offer))
        let held = negotiation.takeRemoteCandidates()
        for line in held.lines { await leg.addRemoteCandidate(line) }
        if held.ended { await leg.remoteEndOfCandidates() }
        return try await leg.answer(offer, peerTrickles: trickle)
    }

    func reject(cause: HangupCause = .userBusy) async throws(ParleyError) {
        try begin(.reject)
        await signalling.hangup(callID: id, cause: cause)
        await finish()
    }

    func ignore() async throws(ParleyError) {
        try begin(.ignore)
        await finish()
    }

    func sendRinging() async {
        await signalling.ringing(callID: id)
    }

    /// What the far end or the server did, as the dialect reports it.
    func handle(_ event: CallSignallingEvent) async {
        if case .mediaUpdate(let offer, let reattach, let reply) = event {
            return await answerMediaUpdate(offer: offer, reattach: reattach, reply: reply)
        }
        if case .offerInAnswer(let offer, let reply) = event { return await answerLateOffer(offer, reply: reply) }
        guard !machine.state.isDone else { return }
        switch event {
        case .ringing:
            await apply(.ringing)
        case .earlyMedia(let sdp):
            if let sdp, await applyRemote(sdp) { await apply(.earlyMedia) }
        case .answered(let sdp, let answererTrickles):
            if !answererTrickles { await stopTrickling() }
            if let sdp, !(await applyRemote(sdp)) { return }
            await apply(.answered)
        case .remoteHangup(let reason):
            await end(endingReason(forRemote: reason), failure: nil, notifyServer: false)
        case .failed(let error, let reason):
            await end(endingReason(forRemote: reason), failure: error, notifyServer: false)
        case .transferred(let destination):
            await followTransfer(to: destination)
        case .replaced(let offer, let party):
            await takeReplacement(offer: offer, from: party)
        case .transferProgress(let progress):
            eventSink.yield(.transfer(progress))
        case .remoteCandidate(let line):
            if let leg { await leg.addRemoteCandidate(line) } else { negotiation.holdRemoteCandidate(line) }
        case .remoteEndOfCandidates:
            if let leg { await leg.remoteEndOfCandidates() } else { negotiation.holdRemoteEndOfCandidates() }
        case .remoteHold:
            await apply(.remoteHold)
        case .remoteUnhold:
            await apply(.remoteUnhold)
        case .dtmf(let digits):
            for character in digits where DTMFDigit(character) != nil { report(digit: character) }
        case .participants(let joined, let left):
            participants.merge(joined) { _, new in new }
            if let left { participants[left] = nil }
        case .sessionLost(let error):
            await end(TerminationReason(localStatus: .networkLost), failure: error, notifyServer: false)
        case .error(let error):
            eventSink.yield(.error(error))
        case .mediaUpdate, .offerInAnswer:
            break
        }
    }

    // MARK: Inside

    func begin(_ operation: CallOperation) throws(ParleyError) {
        do {
            try machine.begin(operation)
        } catch {
            throw ParleyError(error)
        }
        publishState()
    }

    /// The call may have ended while we awaited (a hangup, the far end, the network): nothing
    /// more goes out for it.
    func ensureLive(sending what: String) throws(ParleyError) {
        guard machine.state.isDone else { return }
        throw ParleyError(kind: .callState, message: "the call ended before its \(what) went out")
    }

    private func holdRequest(_ operation: CallOperation) async throws(ParleyError) {
        try begin(operation)
        do {
            try await signalling.hold(callID: id, operation == .hold)
        } catch {
            machine.finish(operation, succeeded: false)
            throw error
        }
        machine.finish(operation, succeeded: true)
        publishState()
        await updateHold()
    }

    /// The dialect's side of the call, then our media; a failure ends the call. Nothing of ours
    /// was sent, but an offer we cannot answer (no media leg: out of descriptors, say) is
    /// refused, or the caller would ring until its own timeout.
    func prepare(role: ICEAgentConfiguration.Role, withoutICE: Bool) async throws(ParleyError) -> MediaLeg {
        do {
            try await signalling.open(callID: id)
            try ensureLive(sending: direction == .outgoing ? "invite" : "answer")
            return try startLeg(role: role, withoutICE: withoutICE)
        } catch {
            await fail(error, telling: direction == .incoming ? .normalTemporaryFailure : nil)
            throw error
        }
    }

    /// A new media leg for the call, its events pumped into `handle(_:)`.
    /// `withoutICE`: a classic SIP peer's media (docs/sip.md, "Media per peer").
    func startLeg(role: ICEAgentConfiguration.Role, withoutICE: Bool = false) throws(ParleyError) -> MediaLeg {
        let leg = try MediaLeg(role: role, options: mediaOptions, logger: logger, withoutICE: withoutICE)
        self.leg = leg
        let events = leg.events
        // Unstructured: the leg's event pump lives as long as the leg; the call cancels it when the leg goes.
        timers.pumpLeg(Task { [weak self] in
            for await event in events { await self?.handle(event) }
        })
        return leg
    }

    private func applyRemote(_ sdp: String) async -> Bool {
        guard let leg else { return false }
        do {
            try await leg.applyAnswer(sdp)
            return true
        } catch {
            await fail(error, telling: .incompatibleDestination)
            return false
        }
    }

    /// The far end answered without opting in to trickle: what we gathered is in our offer
    /// (or went before the answer), and nothing more is sent it would ignore.
    private func stopTrickling() async {
        negotiation.peerTrickles(false)
        await leg?.stopTrickling()
    }

    func signalledCall() async {
        await send(negotiation.signalled())
    }

    private func send(_ candidates: [String?]) async {
        for candidate in candidates {
            if let candidate { await signalling.candidate(callID: id, line: candidate) } else { await signalling.endOfCandidates(callID: id) }
        }
    }

    func handle(_ event: MediaLegEvent) async {
        guard !machine.state.isDone else { return }
        if let reported = event.callEvent { eventSink.yield(reported) }
        mediaPath.note(event)
        if recovery.pendingPath != nil { await completeRecoveryIfMediaIsBack() }
        switch event {
        case .localCandidate(let line):
            await send(negotiation.pass(line))
        case .gatheringComplete where trickle:
            await send(negotiation.pass(nil))
        case .secured, .unencrypted:
            if negotiation.securedMakesActive() { await apply(.answered) }
        case .dtmf(let digit, _):
            report(digit: digit)
        case .iceState, .selectedPair, .disrupted, .restored, .gatheringComplete, .pathReady:
            break
        case .stopped:
            await mediaStopped()
        case .firstPacketArrived(let instant):
            firstMedia.packetArrived(at: instant)
        case .firstAudiblePlayed(let sound):
            firstMedia.audiblePlayed(sound)
        case .remoteGoodbye:
            logger.debug("the far end sent RTCP BYE")
        case .failed(let error) where error.kind == .iceFailed && isPastAnswer && onPathLost != nil:
            logger.warning("call \(id) lost its media path: \(error); recovering")
            await reconnecting(moved: false)
            await onPathLost?(self)
        case .failed(let error):
            // The call's error event and failure carry it to the application; at error level the
            // command line would print it a second time.
            logger.info("call \(id) media failed: \(error)")
            await fail(error, telling: .normalTemporaryFailure)
        }
    }

    private func report(digit: Character) {
        eventSink.yield(.dtmf(digit))
        digitSink.yield(digit)
    }

    func apply(_ signal: CallSignal) async {
        guard machine.handle(signal) else { return }
        if signal == .answered {
            timers.answered()
            startMediaTimer()
        }
        publishState()
        await updateHold()
    }

    /// Each change once; `done` is published by `finish` after media has stopped.
    private func publishState() {
        guard !machine.state.isDone, machine.state != publishedState else { return }
        publishedState = machine.state
        timeline.note(machine.state, direction: direction)
        eventSink.yield(.state(machine.state))
    }

    /// Held either way: we send silence until both sides are active again.
    private func updateHold() async {
        await leg?.setHeld(machine.state.isHeld)
    }

    func end(_ reason: TerminationReason, failure: ParleyError?, notifyServer: Bool, cause: HangupCause = .normalClearing) async {
        guard !machine.state.isDone else { return }
        if let failure {
            self.failure = failure
            eventSink.yield(.error(failure))
        }
        machine.handle(.ended(reason))
        if notifyServer { await signalling.hangup(callID: id, cause: cause) }
        await finish()
    }

    /// Ends the call for a failure of ours (`ended-by-error`). With `cause`, the server is told it
    /// and the ending carries it; without, nothing is sent (nothing of ours went out, or the
    /// signalling is what failed).
    func fail(_ error: ParleyError, telling cause: HangupCause? = nil) async {
        guard let cause else { return await end(TerminationReason(localStatus: .endedByError), failure: error, notifyServer: false) }
        await end(TerminationReason(cause, localStatus: .endedByError), failure: error, notifyServer: true, cause: cause)
    }

    /// The call is done: media stops, the dialect lets go, streams end, waiters learn why.
    func finish() async {
        guard case .done = machine.state, !finished else { return }
        finished = true
        timeline.note(machine.state, direction: direction)
        timers.stopLegPump()
        let networkWatch = recovery.end()
        await leaveMerge()
        await amendEndingWithoutMedia()
        timers.cancelTimers()
        await networkWatch?.close()
        await leg?.stop()
        await signalling.close()
        eventSink.yield(.state(machine.state))
        eventSink.finish()
        digitSink.finish()
        firstMedia.callEnded()
        // The client forgets the call first: whoever waited for the end sees it gone from
        // `activeCalls`.
        await onEnd?(id)
        let reason = terminationReason ?? TerminationReason()
        for waiter in doneWaiters { waiter.resume(returning: reason) }
        doneWaiters = []
    }
}
