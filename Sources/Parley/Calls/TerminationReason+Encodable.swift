/// How `parley --json` writes why a call ended (docs/calls.md, "Termination reasons"): the
/// server's cause and SIP details when given, and always the client's own status, its Kandy code
/// and whether the ending was normal.
extension TerminationReason: Encodable {
    private enum CodingKeys: String, CodingKey {
        case cause, causeCode, sipCode, sipReason, sipCallId, localStatus, localStatusCode, normal
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(cause, forKey: .cause)
        try container.encodeIfPresent(causeCode, forKey: .causeCode)
        try container.encodeIfPresent(sipCode, forKey: .sipCode)
        try container.encodeIfPresent(sipReason, forKey: .sipReason)
        try container.encodeIfPresent(sipCallID, forKey: .sipCallId)
        try container.encode(reportedLocalStatus.rawValue, forKey: .localStatus)
        try container.encode(reportedLocalStatus.kandyCode, forKey: .localStatusCode)
        try container.encode(isNormal, forKey: .normal)
    }
}
