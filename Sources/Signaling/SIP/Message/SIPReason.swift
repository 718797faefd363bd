/// The Reason header field (RFC 3326): why a BYE, a CANCEL or a final response ends a call, as
/// `protocol;cause=N;text="..."`. We write and read the `Q.850` protocol's cause, which is the
/// hang-up cause the Verto dialect already carries (docs/sip.md, "Reason").
package struct SIPReason: Sendable, Equatable {
    /// `Q.850` or `SIP` (compared without case when read).
    package var protocolName: String
    package var cause: Int
    package var text: String?

    package init(protocolName: String, cause: Int, text: String? = nil) {
        self.protocolName = protocolName
        self.cause = cause
        self.text = text
    }

    /// One value of the field; nil for one that is not `token;cause=DIGITS...`.
    package init?(parsing value: String) {
        var scanner = SIPValueScanner(value, line: 0, field: "Reason")
        scanner.skipWhitespace()
        guard let name = scanner.token(), let parameters = try? scanner.parameters(), (try? scanner.expectEnd()) != nil,
              let causeText = parameters["cause"], causeText.count <= 5, let cause = Int(causeText) else { return nil }
        protocolName = name
        self.cause = cause
        text = parameters["text"]
    }

    /// The field's value, the text quoted.
    package var value: String {
        var parameters = SIPParameters()
        parameters.append("cause", String(cause))
        if let text { parameters.append("text", text, quoted: true) }
        return protocolName + parameters.description
    }

    package var isQ850: Bool { protocolName.uppercased() == "Q.850" }

    /// The Q.850 value of a message's Reason fields, if it has one of cause 1-127.
    package static func q850(in message: SIPMessage) -> SIPReason? {
        message.values(.reason).lazy.compactMap { SIPReason(parsing: $0.value) }
            .first { $0.isQ850 && Self.q850Range.contains($0.cause) }
    }

    /// The `SIP` protocol's value of a message's Reason fields (a SIP status, RFC 3326 §2), if it
    /// has one of 200-699: a CANCEL's `SIP;cause=200` says another phone answered the call.
    package static func sipStatus(in message: SIPMessage) -> SIPReason? {
        message.values(.reason).lazy.compactMap { SIPReason(parsing: $0.value) }
            .first { $0.protocolName.uppercased() == "SIP" && (200...699).contains($0.cause) }
    }

    /// The field for ending a call with `cause`: nil for a cause that is not Q.850's (one of
    /// FreeSWITCH's own codes above 127, or none).
    package static func header(for cause: HangupCause) -> SIPHeader? {
        guard let code = cause.causeCode, q850Range.contains(code) else { return nil }
        return SIPHeader(.reason, SIPReason(protocolName: "Q.850", cause: code, text: cause.cause).value)
    }

    /// The hang-up cause a peer's Q.850 cause names: the name FreeSWITCH gives it (docs/sip.md,
    /// "Reason"), or `CAUSE_N` for a code outside that table.
    package static func hangupCause(q850 code: Int) -> HangupCause {
        HangupCause(cause: q850Names[code] ?? "CAUSE_\(code)", causeCode: code)
    }

    static let q850Range = 1...127

    /// Q.850 causes by number, in the names FreeSWITCH and the Verto dialect use; 26, Q.850's
    /// "non-selected user clearing" (another phone took the call), which FreeSWITCH does not
    /// name, is called what that means to a phone (docs/sip.md, "Reason").
    static let q850Names: [Int: String] = [
        1: "UNALLOCATED_NUMBER", 2: "NO_ROUTE_TRANSIT_NET", 3: "NO_ROUTE_DESTINATION", 6: "CHANNEL_UNACCEPTABLE",
        7: "CALL_AWARDED_DELIVERED", 16: "NORMAL_CLEARING", 17: "USER_BUSY", 18: "NO_USER_RESPONSE", 19: "NO_ANSWER",
        20: "SUBSCRIBER_ABSENT", 21: "CALL_REJECTED", 22: "NUMBER_CHANGED", 23: "REDIRECTION_TO_NEW_DESTINATION",
        25: "EXCHANGE_ROUTING_ERROR", 26: "ANSWERED_ELSEWHERE", 27: "DESTINATION_OUT_OF_ORDER", 28: "INVALID_NUMBER_FORMAT", 29: "FACILITY_REJECTED",
        30: "RESPONSE_TO_STATUS_ENQUIRY", 31: "NORMAL_UNSPECIFIED", 34: "NORMAL_CIRCUIT_CONGESTION", 38: "NETWORK_OUT_OF_ORDER",
        41: "NORMAL_TEMPORARY_FAILURE", 42: "SWITCH_CONGESTION", 43: "ACCESS_INFO_DISCARDED", 44: "REQUESTED_CHAN_UNAVAIL",
        45: "PRE_EMPTED", 50: "FACILITY_NOT_SUBSCRIBED", 52: "OUTGOING_CALL_BARRED", 54: "INCOMING_CALL_BARRED",
        57: "BEARERCAPABILITY_NOTAUTH", 58: "BEARERCAPABILITY_NOTAVAIL", 63: "SERVICE_UNAVAILABLE", 65: "BEARERCAPABILITY_NOTIMPL",
        66: "CHAN_NOT_IMPLEMENTED", 69: "FACILITY_NOT_IMPLEMENTED", 79: "SERVICE_NOT_IMPLEMENTED", 81: "INVALID_CALL_REFERENCE",
        88: "INCOMPATIBLE_DESTINATION", 95: "INVALID_MSG_UNSPECIFIED", 96: "MANDATORY_IE_MISSING", 97: "MESSAGE_TYPE_NONEXIST",
        99: "IE_NONEXIST", 100: "INVALID_IE_CONTENTS", 101: "WRONG_CALL_STATE", 102: "RECOVERY_ON_TIMER_EXPIRE",
        103: "MANDATORY_IE_LENGTH_ERROR", 111: "PROTOCOL_ERROR", 127: "INTERWORKING",
    ]
}
