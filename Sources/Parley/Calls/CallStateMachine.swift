import Signaling

/// What a person or program can ask of a call.
public enum CallOperation: String, Sendable, CaseIterable {
    case dial, answer, reject, ignore, hangup, hold, unhold, mute, unmute, dtmf
    /// Blind transfer of an answered call (docs/calls.md).
    case transfer
    /// Sending an incoming call elsewhere before answering it.
    case forward

    /// Operations that send a request and so may not overlap with another one.
    var sendsRequest: Bool {
        switch self {
        case .dial, .answer, .hold, .unhold, .dtmf, .transfer, .forward: true
        case .reject, .ignore, .hangup, .mute, .unmute: false
        }
    }
}

/// An operation refused by the state machine; the call is unchanged.
public struct CallOperationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let operation: CallOperation
    public let state: String
    public let reason: String

    public init(operation: CallOperation, state: String, reason: String) {
        self.operation = operation
        self.state = state
        self.reason = reason
    }

    public var description: String { "cannot \(operation.rawValue) the call: \(reason)" }
}

/// What the far end, the server or the network did to a call.
package enum CallSignal: Sendable, Equatable {
    case ringing
    case earlyMedia
    /// The far end answered our call, or the server confirmed our answer.
    case answered
    case remoteHold
    case remoteUnhold
    case remoteHangup(TerminationReason)
    case networkLost
    case reconnecting
    case recovered
    /// The client ended the call on its own (a timeout, a failed negotiation, …).
    case ended(TerminationReason)
}

/// One call's state machine, shared by outgoing and incoming calls (docs/calls.md has its table).
/// Each operation is allowed only in the states that make sense; anything else is a typed error
/// that changes nothing. One request is in flight at a time; hangup is always allowed.
package struct CallStateMachine: Sendable {
    package let direction: CallDirection
    package private(set) var state: CallState
    package private(set) var inFlight: CallOperation?
    package private(set) var muted = false
    /// The cause our hangup sends, which the call's own ending carries too.
    package var hangupCause = HangupCause.normalClearing
    /// Where to return when a dropped or reconnecting call recovers.
    private var stateBeforeDisruption: CallState?
    /// The call was answered at some point: from then on it should have media.
    private(set) var wasAnswered = false

    /// The state the call is in, or returns to once a disruption is over.
    var settledState: CallState { stateBeforeDisruption ?? state }

    /// The states of a call answered and not over: its media is worth keeping through a
    /// network change.
    static let pastAnswer: [CallState] = [.active, .held, .remotelyHeld, .doubleHeld, .dropped, .reconnecting]

    /// The states of a call not answered yet, which its ring timeout may still end.
    static let beforeAnswer: [CallState] = [.new, .dialing, .ringing, .earlyMedia]

    var isPastAnswer: Bool { Self.pastAnswer.contains(state) }

    /// Never answered and still in a state before the answer.
    var awaitsAnswer: Bool { !wasAnswered && Self.beforeAnswer.contains(state) }

    /// Dropped or reconnecting: waiting for its path to come back.
    var isRecovering: Bool { state == .dropped || state == .reconnecting }

    package init(direction: CallDirection) {
        self.direction = direction
        state = direction == .outgoing ? .new : .ringing
    }

    /// The states in which `operation` is allowed, for a call going `direction`.
    package static func allowedStates(for operation: CallOperation, direction: CallDirection) -> [CallState] {
        switch operation {
        case .dial: direction == .outgoing ? [.new] : []
        case .answer, .reject, .ignore: direction == .incoming ? [.ringing] : []
        case .hangup: CallState.live
        case .hold: [.active, .remotelyHeld]
        case .unhold: [.held, .doubleHeld]
        case .mute, .unmute: CallState.live.filter { $0 != .new }
        case .dtmf: [.earlyMedia, .active]
        case .transfer: [.active, .held, .remotelyHeld, .doubleHeld]
        case .forward: direction == .incoming ? [.ringing] : []
        }
    }

    func isAllowed(_ operation: CallOperation) -> Bool {
        Self.allowedStates(for: operation, direction: direction).contains(state)
    }

    /// Starts an operation: checks it, then applies what happens at once (dial → dialing,
    /// answer → answering, hangup/reject/ignore → done, mute flags). Request operations stay in
    /// flight until `finish`.
    package mutating func begin(_ operation: CallOperation) throws(CallOperationError) {
        guard isAllowed(operation) else {
            throw CallOperationError(operation: operation, state: state.name, reason: "not allowed while the call is \(state)")
        }
        if operation.sendsRequest, let inFlight {
            throw CallOperationError(operation: operation, state: state.name, reason: "\(inFlight.rawValue) is still in progress")
        }
        if operation.sendsRequest { inFlight = operation }
        switch operation {
        case .dial: state = .dialing
        case .answer: state = .answering
        case .hangup: end(TerminationReason(hangupCause, localStatus: .endedByLocalUser))
        case .reject: end(TerminationReason(.userBusy, localStatus: .rejected))
        case .ignore: end(TerminationReason(localStatus: .ignored))
        case .mute: muted = true
        case .unmute: muted = false
        case .hold, .unhold, .dtmf, .transfer, .forward: break
        }
    }

    /// A request operation finished: success applies its effect, failure leaves the state as it was.
    package mutating func finish(_ operation: CallOperation, succeeded: Bool) {
        guard inFlight == operation else { return }
        inFlight = nil
        guard succeeded, !state.isDone else {
            if !succeeded, operation == .answer, state == .answering { state = .ringing }
            return
        }
        switch (operation, state) {
        case (.hold, .active): state = .held
        case (.hold, .remotelyHeld): state = .doubleHeld
        case (.unhold, .held): state = .active
        case (.unhold, .doubleHeld): state = .remotelyHeld
        default: break
        }
    }

    /// Applies a signal; returns false when it does not apply in the current state (ignored).
    @discardableResult
    package mutating func handle(_ signal: CallSignal) -> Bool {
        guard !state.isDone else { return false }
        let next: CallState?
        switch (signal, state) {
        case (.ringing, .dialing): next = .ringing
        case (.earlyMedia, .dialing), (.earlyMedia, .ringing): next = direction == .outgoing ? .earlyMedia : nil
        case (.answered, .dialing), (.answered, .ringing), (.answered, .earlyMedia): next = direction == .outgoing ? .active : nil
        case (.answered, .answering): next = .active
        case (.remoteHold, .active): next = .remotelyHeld
        case (.remoteHold, .held): next = .doubleHeld
        case (.remoteUnhold, .remotelyHeld): next = .active
        case (.remoteUnhold, .doubleHeld): next = .held
        case (.remoteHangup(let reason), _), (.ended(let reason), _):
            end(reason)
            return true
        case (.networkLost, .dropped), (.networkLost, .new), (.reconnecting, .reconnecting), (.reconnecting, .new):
            next = nil
        case (.networkLost, _):
            stateBeforeDisruption = stateBeforeDisruption ?? state
            next = .dropped
        case (.reconnecting, _):
            stateBeforeDisruption = stateBeforeDisruption ?? state
            next = .reconnecting
        case (.recovered, .dropped), (.recovered, .reconnecting):
            next = stateBeforeDisruption ?? .active
            stateBeforeDisruption = nil
        default:
            next = nil
        }
        guard let next else { return false }
        if signal == .answered {
            wasAnswered = true
            if inFlight == .answer || inFlight == .dial { inFlight = nil }
        }
        state = next
        return true
    }

    /// Replaces the reason of a call that is already done (one answered without media is not a
    /// normal ending, whoever cleared it).
    mutating func amendEnding(_ reason: TerminationReason) {
        guard state.isDone else { return }
        state = .done(reason)
    }

    private mutating func end(_ reason: TerminationReason) {
        state = .done(reason)
        inFlight = nil
        stateBeforeDisruption = nil
    }
}
