import Foundation

/// When a call reached each milestone, for its record: dialled (or offered, incoming), ringing,
/// answered, ended. The first time each is reached counts.
public struct CallTimeline: Sendable, Equatable {
    public private(set) var dialed: Date?
    public private(set) var ringing: Date?
    public private(set) var answered: Date?
    public private(set) var ended: Date?
    private var heldLocally = false
    private var heldRemotely = false

    public init() {}

    mutating func note(_ state: CallState, direction: CallDirection, at time: Date = Date()) {
        switch state {
        case .dialing: dialed = dialed ?? time
        case .ringing:
            // An incoming call is offered to us ringing: that is its dial.
            if direction == .incoming { dialed = dialed ?? time }
            ringing = ringing ?? time
        case .active: answered = answered ?? time
        case .held: heldLocally = true
        case .remotelyHeld: heldRemotely = true
        case .doubleHeld: (heldLocally, heldRemotely) = (true, true)
        case .done: ended = ended ?? time
        default: break
        }
    }

    /// Who held the call at some time: `local`, `remote` or `both`; nil when it was never held.
    public var heldBy: String? {
        switch (heldLocally, heldRemotely) {
        case (true, true): "both"
        case (true, false): "local"
        case (false, true): "remote"
        case (false, false): nil
        }
    }

    /// From answer to end; nil for a call never answered.
    public var duration: Duration? {
        guard let answered, let ended else { return nil }
        return .seconds(ended.timeIntervalSince(answered))
    }
}
