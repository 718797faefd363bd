import ICE
import Logging
import Media
import Signaling

/// One call, outgoing or incoming: its state machine, its media, its signalling. Every
/// operation checks the state first (docs/calls.md); a refused one throws and changes nothing.
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
    private var mediaOptions: MediaOptions
    var machine: CallStateMachine
    private var publishedState: CallState
    private var finished = false
    var leg: MediaLeg?
    /// Our addresses changed since the media path was set up: the next re-offer restarts ICE.
    var networkMoved = false
    /// One recovery of the media path at a time (ours or the far end's).
    var renegotiating = false
    /// Ends the call if it is still dropped or reconnecting when it fires.
    var recoveryDeadline: Task<Void, Never>?
    let reconnectTimeout: Duration
    private var legPump: Task<Void, Never>?
    /// Candidates wait until the server knows the call (our invite or answer is through).
    private var trickleGate = TrickleGate()
    private var remoteCandidates: [String] = []
    private var remoteCandidatesEnded = false
    private var doneWaiters: [CheckedContinuation<TerminationReason, Never>] = []
    /// The error that ended the call, when one did.
    public private(set) var failure: ParleyError?
    private let onEnd: @Sendable (String) async -> Void
    /// Asked to recover the call when its media path fails after it was answered; nil ends the
    /// call instead.
    let onPathLost: (@Sendable (String) async -> Void)?

    init(id: String, direction: CallDirection, remoteParty: String, signalling: any CallSignalling, media: MediaOptions,
         logger: Logger, reconnectTimeout: Duration = .seconds(60), onPathLost: (@Sendable (String) async -> Void)? = nil,
         onEnd: @escaping @Sendable (String) async -> Void) {
        self.id = id
        self.direction = direction
        self.remoteParty = remoteParty
        self.signalling = signalling
        self.mediaOptions = media
        self.logger = logger
        self.onEnd = onEnd
        self.onPathLost = onPathLost
        self.reconnectTimeout = reconnectTimeout
        machine = CallStateMachine(direction: direction)
        publishedState = machine.state
        (events, eventSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1024))
        (digits, digitSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
        eventSink.yield(.state(machine.state))
    }

    public var state: CallState { machine.state }

    private var trickle: Bool {
        if case .trickle = mediaOptions.iceMode { return true }
        return false
    }
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

    public func hangup(cause: HangupCause = .normalClearing) async {
        guard !machine.state.isDone else { return }
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

    public func mute() async throws(ParleyError) {
        try begin(.mute)
        await leg?.setMuted(true)
    }

    public func unmute() async throws(ParleyError) {
        try begin(.unmute)
        await leg?.setMuted(false)
    }

    /// Sends digits as RFC 4733 events, or as a Verto info message when the far end did not
    /// negotiate telephone-event.
    public func sendDTMF(_ digits: String) async throws(ParleyError) {
        guard !digits.isEmpty, digits.allSatisfy({ DTMFDigit($0) != nil }) else {
            throw ParleyError(kind: .configuration, message: "\"\(digits)\" is not a DTMF digit string (0-9 * # A-D)")
        }
        try begin(.dtmf)
        defer { machine.finish(.dtmf, succeeded: true) }
        if let leg, await leg.canSendTelephoneEvents {
            try await leg.sendDTMF(digits)
        } else {
            try await signalling.sendDTMF(callID: id, digits: digits)
        }
    }

    public func statistics() async -> CallStatistics {
        await leg?.statistics() ?? CallStatistics()
    }

    // MARK: Bot support

    /// Runs `runner`'s script on this answered call and returns what happened.
    public func runBot(_ runner: BotRunner, logger: Logger) async -> BotOutcome {
        guard let taps = await leg?.audioTaps() else {
            return BotOutcome(steps: [], digits: [], recordings: [], ending: .callerHungUp)
        }
        return await runner.run(on: CallBotControl(call: self, taps: taps), logger: logger)
    }

    // MARK: Driven by the client

    /// Outgoing: gathers, offers and sends the invite. The call is dialing when this returns.
    func dial(destination: String, options: DialOptions) async throws(ParleyError) {
        try begin(.dial)
        let leg = try startLeg(role: .controlling)
        do {
            let offer = try await leg.makeOffer()
            try await signalling.invite(callID: id, destination: destination, options: options, sdp: offer, trickle: trickle)
        } catch {
            await end(TerminationReason(localStatus: .endedByError), failure: error, notifyServer: false)
            throw error
        }
        await signalledCall()
    }

    /// Incoming: answers `offer` with our media and tells the server.
    func answer(offer: String, media: MediaOptions?) async throws(ParleyError) {
        try begin(.answer)
        if let media { mediaOptions = media }
        let leg = try startLeg(role: .controlled)
        do {
            for line in remoteCandidates { await leg.addRemoteCandidate(line) }
            if remoteCandidatesEnded { await leg.remoteEndOfCandidates() }
            remoteCandidates = []
            let answer = try await leg.answer(offer)
            try await signalling.answer(callID: id, sdp: answer, trickle: trickle)
        } catch {
            machine.finish(.answer, succeeded: false)
            await end(TerminationReason(cause: HangupCause.incompatibleDestination.cause, causeCode: HangupCause.incompatibleDestination.causeCode, localStatus: .endedByError),
                      failure: error, notifyServer: true, cause: .incompatibleDestination)
            throw error
        }
        machine.finish(.answer, succeeded: true)
        await apply(.answered)
        await signalledCall()
    }

    func reject() async throws(ParleyError) {
        try begin(.reject)
        await signalling.hangup(callID: id, cause: .userBusy)
        await finish()
    }

    func ignore() async throws(ParleyError) {
        try begin(.ignore)
        await finish()
    }

    func sendRinging() async {
        await signalling.ringing(callID: id)
    }

    func handle(_ event: VertoEvent) async {
        switch event {
        case .ringing:
            await apply(.ringing)
        case .earlyMedia(let progress):
            if let sdp = progress.sdp, await applyRemote(sdp) { await apply(.earlyMedia) }
        case .answered(let progress):
            if let sdp = progress.sdp, !(await applyRemote(sdp)) { return }
            await apply(.answered)
        case .remoteHangup(_, let cause):
            await end(TerminationReason(cause: cause.cause, causeCode: cause.causeCode, sipCode: cause.sipCode, sipReason: cause.sipReason, sipCallID: cause.sipCallID),
                      failure: nil, notifyServer: false)
        case .remoteCandidate(let candidate):
            if let leg { await leg.addRemoteCandidate(candidate.candidate) } else { remoteCandidates.append(candidate.candidate) }
        case .remoteEndOfCandidates:
            if let leg { await leg.remoteEndOfCandidates() } else { remoteCandidatesEnded = true }
        case .modify(_, let action, _):
            switch action {
            case "hold": await apply(.remoteHold)
            case "unhold": await apply(.remoteUnhold)
            default: logger.debug("ignored modify \(action)")
            }
        case .info(_, let params):
            for character in params["dtmf"]?.stringValue ?? "" where DTMFDigit(character) != nil {
                report(digit: character)
            }
        default:
            break
        }
    }

    // MARK: Inside

    private func begin(_ operation: CallOperation) throws(ParleyError) {
        do {
            try machine.begin(operation)
        } catch {
            throw ParleyError(error)
        }
        publishState()
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

    private func startLeg(role: ICEAgentConfiguration.Role) throws(ParleyError) -> MediaLeg {
        let leg: MediaLeg
        do {
            leg = try MediaLeg(role: role, options: mediaOptions, logger: logger)
        } catch {
            machine.finish(role == .controlling ? .dial : .answer, succeeded: false)
            let reason = TerminationReason(localStatus: .endedByError)
            machine.handle(.ended(reason))
            failure = error
            publishState()
            throw error
        }
        self.leg = leg
        let events = leg.events
        legPump = Task { [weak self] in
            for await event in events { await self?.handle(event) }
        }
        return leg
    }

    private func applyRemote(_ sdp: String) async -> Bool {
        guard let leg else { return false }
        do {
            try await leg.applyAnswer(sdp)
            return true
        } catch {
            await end(TerminationReason(cause: HangupCause.incompatibleDestination.cause, causeCode: HangupCause.incompatibleDestination.causeCode, localStatus: .endedByError),
                      failure: error, notifyServer: true, cause: .incompatibleDestination)
            return false
        }
    }

    private func signalledCall() async {
        await send(trickleGate.open())
    }

    private func send(_ candidates: [String?]) async {
        for candidate in candidates {
            if let candidate { await signalling.candidate(callID: id, line: candidate) } else { await signalling.endOfCandidates(callID: id) }
        }
    }

    private func handle(_ event: MediaLegEvent) async {
        guard !machine.state.isDone else { return }
        if let reported = event.callEvent { eventSink.yield(reported) }
        switch event {
        case .localCandidate(let line):
            await send(trickleGate.pass(line))
        case .gatheringComplete where trickle:
            await send(trickleGate.pass(nil))
        case .dtmf(let digit, _):
            report(digit: digit)
        case .iceState, .selectedPair, .secured, .disrupted, .restored, .gatheringComplete:
            break
        case .remoteGoodbye:
            logger.debug("the far end sent RTCP BYE")
        case .failed(let error) where error.kind == .iceFailed && isPastAnswer && onPathLost != nil:
            logger.warning("call \(id) lost its media path: \(error); recovering")
            await reconnecting(moved: false)
            await onPathLost?(id)
        case .failed(let error):
            logger.error("call \(id) media failed: \(error)")
            await end(TerminationReason(cause: HangupCause.normalTemporaryFailure.cause, causeCode: HangupCause.normalTemporaryFailure.causeCode, localStatus: .endedByError),
                      failure: error, notifyServer: true, cause: .normalTemporaryFailure)
        }
    }

    private func report(digit: Character) {
        eventSink.yield(.dtmf(digit))
        digitSink.yield(digit)
    }

    func apply(_ signal: CallSignal) async {
        guard machine.handle(signal) else { return }
        publishState()
        await updateHold()
    }

    /// Each change once; `done` is published by `finish` after media has stopped.
    private func publishState() {
        guard !machine.state.isDone, machine.state != publishedState else { return }
        publishedState = machine.state
        eventSink.yield(.state(machine.state))
    }

    /// Held either way: we send silence until both sides are active again.
    private func updateHold() async {
        await leg?.setHeld([CallState.held, .remotelyHeld, .doubleHeld].contains(machine.state))
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

    /// The call is done: media stops, streams end, waiters learn why.
    private func finish() async {
        guard case .done(let reason) = machine.state, !finished else { return }
        finished = true
        legPump?.cancel()
        recoveryDeadline?.cancel()
        await leg?.stop()
        eventSink.yield(.state(machine.state))
        eventSink.finish()
        digitSink.finish()
        // The client forgets the call first: whoever waited for the end sees it gone from
        // `activeCalls`.
        await onEnd(id)
        for waiter in doneWaiters { waiter.resume(returning: reason) }
        doneWaiters = []
    }
}
