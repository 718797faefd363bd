extension TerminationReason.LocalStatus {
    /// Kandy's numeric end reason for this status (9900-9908). The endings Kandy has no reason for
    /// (a lost network, no media, a recovery that timed out) are errors to it: 9906.
    public var kandyCode: Int {
        switch self {
        case .notProvided: 9900
        case .endedByLocalUser: 9901
        case .rejected: 9902
        case .ignored: 9903
        case .answeredElsewhere: 9904
        case .sessionCompleted: 9905
        case .endedByError, .networkLost, .noMedia, .reconnectTimeout, .noAnswer, .agentLost: 9906
        case .endedByUnregister: 9907
        case .callForwarded: 9908
        }
    }
}
