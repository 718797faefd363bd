/// Why a call ended, as the server stated it or as the client decided (DESIGN.md, call model).
public struct TerminationReason: Sendable, Equatable, CustomStringConvertible {
    /// Endings the client decides itself.
    public enum LocalStatus: String, Sendable, CaseIterable {
        case endedByLocalUser = "ended-by-local-user"
        case rejected
        case ignored
        case answeredElsewhere = "answered-elsewhere"
        case endedByError = "ended-by-error"
        case networkLost = "network-lost"
        case noMedia = "no-media"
        case reconnectTimeout = "reconnect-timeout"
    }

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

    /// A normal ending: the call was cleared by either side without an error.
    public var isNormal: Bool {
        switch localStatus {
        case .endedByLocalUser?, nil: cause == nil || cause == "NORMAL_CLEARING"
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
