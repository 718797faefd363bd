/// The call quality warnings (docs/calls.md), each raised past one threshold and cleared only
/// past a second, safer one, so that a value hovering at the limit does not flap.
public enum QualityWarning: String, Sendable, Equatable, CaseIterable, Codable {
    case highRTT = "high-rtt"
    case highJitter = "high-jitter"
    case highPacketLoss = "high-packet-loss"
    case lowMOS = "low-mos"
    /// Our source sent the same level for 10 s: a dead microphone or a stuck source.
    case constantAudioInputLevel = "constant-audio-input-level"
    /// No packet arrived for 5 s while the call was active.
    case noAudioReceived = "no-audio-received"

    /// The value past which the warning is raised, in the unit of its `value`.
    public var raiseThreshold: Double {
        switch self {
        case .highRTT: 400
        case .highJitter: 30
        case .highPacketLoss: 3
        case .lowMOS: 3.5
        case .constantAudioInputLevel: 10
        case .noAudioReceived: 5
        }
    }

    /// The value the measure must return past before the warning clears.
    public var clearThreshold: Double {
        switch self {
        case .highRTT: 300
        case .highJitter: 20
        case .highPacketLoss: 1
        case .lowMOS: 3.6
        // Cleared by the first change of level, the first packet.
        case .constantAudioInputLevel, .noAudioReceived: 0
        }
    }

    /// Raised when the value is above the threshold (below it for MOS).
    var raisedAbove: Bool { self != .lowMOS }

    func shouldRaise(_ value: Double) -> Bool {
        raisedAbove ? value > raiseThreshold : value < raiseThreshold
    }

    func shouldClear(_ value: Double) -> Bool {
        raisedAbove ? value <= clearThreshold : value >= clearThreshold
    }
}

/// A warning raised or cleared, with the value that did it: milliseconds for RTT and jitter,
/// percent for loss, MOS, seconds for the level and silence warnings.
public struct QualityWarningChange: Sendable, Equatable {
    public var warning: QualityWarning
    public var value: Double
    public var raised: Bool

    public init(warning: QualityWarning, value: Double, raised: Bool) {
        self.warning = warning
        self.value = value
        self.raised = raised
    }
}

/// Which warnings are up; fed one measure at a time, it answers what changed.
public struct QualityWarnings: Sendable, Equatable {
    public private(set) var active: Set<QualityWarning> = []
    /// Every raise so far, in order (a warning raised twice is listed twice).
    public private(set) var raisedHistory: [QualityWarning] = []

    public init() {}

    /// The latest value of `warning`'s measure; nil when it has none (no RTT report yet).
    public mutating func observe(_ warning: QualityWarning, _ value: Double?) -> QualityWarningChange? {
        guard let value else { return nil }
        if active.contains(warning) {
            guard warning.shouldClear(value) else { return nil }
            active.remove(warning)
            return QualityWarningChange(warning: warning, value: value, raised: false)
        }
        guard warning.shouldRaise(value) else { return nil }
        active.insert(warning)
        raisedHistory.append(warning)
        return QualityWarningChange(warning: warning, value: value, raised: true)
    }
}
