/// Why a call ended, as the server stated it or as the client decided (docs/calls.md).
public struct TerminationReason: Sendable, Equatable, CustomStringConvertible {
    /// Endings the client decides itself.
    /// Each maps to one of Kandy's end reasons 9900-9908 (`kandyCode`, docs/calls.md).
    public enum LocalStatus: String, Sendable, CaseIterable {
        /// The client did not end the call: the far end or the server did. Reported in place of
        /// a missing status (`reportedLocalStatus`), never stored.
        case notProvided = "not-provided"
        case endedByLocalUser = "ended-by-local-user"
        case rejected
        case ignored
        case answeredElsewhere = "answered-elsewhere"
        /// We transferred the call away (blind transfer): our part of it is complete.
        case sessionCompleted = "session-completed"
        case endedByError = "ended-by-error"
        /// The client logged out (disconnected) with the call still up.
        case endedByUnregister = "ended-by-unregister"
        /// We forwarded the call before answering it.
        case callForwarded = "call-forwarded"
        case networkLost = "network-lost"
        case noMedia = "no-media"
        case reconnectTimeout = "reconnect-timeout"
        /// Our outgoing call rang for its whole ring timeout and we gave up (NO_ANSWER, 19).
        case noAnswer = "no-answer"
        /// The call's agent program disconnected while the call was up (docs/agents.md).
        case agentLost = "agent-lost"
    }

    /// Why the call ended as the client reports it: its own status, or `notProvided` when the
    /// far end or the server ended it.
    public var reportedLocalStatus: LocalStatus { localStatus ?? .notProvided }

    public var cause: String?
    public var causeCode: Int?
    public var sipCode: Int?
    public var sipReason: String?
    public var sipCallID: String?
    /// Set when the client ended the call; nil when the remote side or the server did.
    public var localStatus: LocalStatus?

    public init(cause: String? = nil, causeCode: Int? = nil, sipCode: Int? = nil, sipReason: String? = nil, sipCallID: String? = nil,
                localStatus: LocalStatus? = nil) {
        self.cause = cause
        self.causeCode = causeCode
        self.sipCode = sipCode
        self.sipReason = sipReason
        self.sipCallID = sipCallID
        self.localStatus = localStatus
    }

    /// A normal ending: the call was cleared by either side without an error, or we handed it on
    /// (transferred, forwarded).
    public var isNormal: Bool {
        switch localStatus {
        case .endedByLocalUser?, .notProvided?, .endedByUnregister?, nil: cause == nil || cause == "NORMAL_CLEARING"
        case .sessionCompleted?, .callForwarded?: true
        default: false
        }
    }

    public var description: String {
        var parts: [String] = []
        if let localStatus { parts.append(localStatus.rawValue) }
        if let cause { parts.append(cause + (causeCode.map { " (\($0))" } ?? "")) }
        if let sipCode { parts.append("SIP \(sipCode)" + (sipReason.map { " \($0)" } ?? "")) }
        return parts.isEmpty ? "ended" : parts.joined(separator: ", ")
    }
}

/// The states every call goes through, outgoing and incoming alike.
public enum CallState: Sendable, Equatable, CustomStringConvertible {
    case new
    /// Our invite is out; nothing heard yet.
    case dialing
    /// The far end sent early media (session progress).
    case earlyMedia
    /// Outgoing: the far end is alerting. Incoming: the call is offered to us.
    case ringing
    /// We answered and wait for the server to confirm.
    case answering
    case active
    case held
    case remotelyHeld
    case doubleHeld
    /// The network went away under the call.
    case dropped
    case reconnecting
    case done(TerminationReason)

    /// Held by either side: no RTP flows by design.
    public var isHeld: Bool { self == .held || self == .remotelyHeld || self == .doubleHeld }

    /// Who holds the call in this state: `local` (we do), `remote` (the far end does) or `both`;
    /// nil when nobody does.
    public var holder: String? {
        switch self {
        case .held: "local"
        case .remotelyHeld: "remote"
        case .doubleHeld: "both"
        default: nil
        }
    }

    public var name: String {
        switch self {
        case .new: "new"
        case .dialing: "dialing"
        case .earlyMedia: "early-media"
        case .ringing: "ringing"
        case .answering: "answering"
        case .active: "active"
        case .held: "held"
        case .remotelyHeld: "remotely-held"
        case .doubleHeld: "double-held"
        case .dropped: "dropped"
        case .reconnecting: "reconnecting"
        case .done: "done"
        }
    }

    public var description: String {
        if case .done(let reason) = self { return "done (\(reason))" }
        return name
    }

    public var isDone: Bool {
        if case .done = self { return true }
        return false
    }

    /// Every state but `done`, for tables and tests.
    public static let live: [CallState] = [.new, .dialing, .earlyMedia, .ringing, .answering, .active, .held, .remotelyHeld, .doubleHeld, .dropped, .reconnecting]
}

public enum CallDirection: String, Sendable {
    case outgoing, incoming
}
