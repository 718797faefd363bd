/// Why a server request could not be turned into an event; answered with `code`.
struct InboundProblem: Error {
    let code: Int
    let message: String

    static func missing(_ field: String) -> InboundProblem { InboundProblem(code: -32602, message: "\(field) missing") }
}

/// Reads server→client Verto requests into events, tolerating the variations between
/// servers and SDK generations listed in docs/verto-protocol.md §12.
enum VertoInbound {
    /// "telnyx_rtc.invite" and "verto.invite" are the same message.
    static func baseName(_ method: String) -> String {
        for prefix in ["telnyx_rtc.", "verto."] where method.hasPrefix(prefix) {
            return String(method.dropFirst(prefix.count))
        }
        return method
    }

    static func event(for name: String, params: JSONValue) throws(InboundProblem) -> VertoEvent {
        switch name {
        case "invite": return .incomingCall(try offer(params))
        case "attach": return .attachOffer(try offer(params))
        case "ringing": return .ringing(try progress(params))
        case "media": return .earlyMedia(try progress(params))
        case "answer": return .answered(try progress(params))
        case "bye": return .remoteHangup(callID: try callID(params), cause: hangupCause(params))
        case "candidate": return .remoteCandidate(try candidate(params))
        case "endOfCandidates": return .remoteEndOfCandidates(callID: try callID(params))
        case "info": return .info(callID: callIDIfPresent(params), params: params)
        case "modify":
            guard let action = params["action"]?.stringValue else { throw .missing("action") }
            return .modify(callID: try callID(params), action: action, params: params)
        case "display": return .display(callID: try callID(params), params: params)
        default: throw InboundProblem(code: -32601, message: "method not supported by this client")
        }
    }

    /// The call id lives in `params.callID` from servers, in `dialogParams.callID` from clients,
    /// and some SDKs spell it `callId`.
    static func callIDIfPresent(_ params: JSONValue) -> String? {
        let places = [params["callID"], params["callId"], params["dialogParams"]?["callID"], params["dialogParams"]?["callId"]]
        return places.lazy.compactMap { $0?.stringValue }.first { !$0.isEmpty }
    }

    static func callID(_ params: JSONValue) throws(InboundProblem) -> String {
        guard let id = callIDIfPresent(params) else { throw .missing("callID") }
        return id
    }

    static func customHeaders(_ params: JSONValue) -> [CustomHeader] {
        CustomHeader.list(from: params["dialogParams"]?["custom_headers"] ?? params["custom_headers"])
    }

    static func offer(_ params: JSONValue) throws(InboundProblem) -> VertoOffer {
        let id = try callID(params)
        guard let sdp = params["sdp"]?.stringValue, !sdp.isEmpty else { throw .missing("sdp") }
        return VertoOffer(
            callID: id, sdp: sdp,
            callerName: params["caller_id_name"]?.stringValue, callerNumber: params["caller_id_number"]?.stringValue,
            calleeName: params["callee_id_name"]?.stringValue, calleeNumber: params["callee_id_number"]?.stringValue,
            customHeaders: customHeaders(params),
            clientState: params["client_state"]?.stringValue ?? params["clientState"]?.stringValue,
            telnyxSessionID: params["telnyx_session_id"]?.stringValue, telnyxLegID: params["telnyx_leg_id"]?.stringValue,
            telnyxCallControlID: params["telnyx_call_control_id"]?.stringValue,
            params: params)
    }

    static func progress(_ params: JSONValue) throws(InboundProblem) -> VertoCallProgress {
        VertoCallProgress(
            callID: try callID(params),
            sdp: params["sdp"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 },
            customHeaders: customHeaders(params),
            telnyxSessionID: params["telnyx_session_id"]?.stringValue, telnyxLegID: params["telnyx_leg_id"]?.stringValue,
            params: params)
    }

    static func hangupCause(_ params: JSONValue) -> HangupCause {
        let code = params["causeCode"]?.intValue
        let cause = params["cause"]?.stringValue ?? code.flatMap(HangupCause.name(forCode:)) ?? "NORMAL_CLEARING"
        return HangupCause(cause: cause, causeCode: code, sipCode: params["sipCode"]?.intValue,
                           sipReason: params["sipReason"]?.stringValue, sipCallID: params["sip_call_id"]?.stringValue)
    }

    static func candidate(_ params: JSONValue) throws(InboundProblem) -> VertoCandidate {
        guard var line = params["candidate"]?.stringValue, !line.isEmpty else { throw .missing("candidate") }
        if line.hasPrefix("a=") { line.removeFirst(2) }
        if !line.hasPrefix("candidate:") { line = "candidate:" + line }
        return VertoCandidate(callID: try callID(params), candidate: line, sdpMid: params["sdpMid"]?.stringValue,
                              sdpMLineIndex: params["sdpMLineIndex"]?.intValue)
    }
}

extension HangupCause {
    /// Q.850 names for the codes docs/verto-protocol.md §11 lists, for a bye that carries only a code.
    private static let known: [Int: String] = [
        1: "UNALLOCATED_NUMBER", 16: "NORMAL_CLEARING", 17: "USER_BUSY", 21: "CALL_REJECTED", 41: "NORMAL_TEMPORARY_FAILURE",
        88: "INCOMPATIBLE_DESTINATION", 96: "MANDATORY_IE_MISSING", 102: "RECOVERY_ON_TIMER_EXPIRE", 487: "ORIGINATOR_CANCEL",
        602: "ALLOTTED_TIMEOUT", 608: "INVALID_GATEWAY", 805: "PICKED_OFF",
    ]
    private static let knownNames = Set(known.values)

    static func name(forCode code: Int) -> String? {
        known[code]
    }

    /// `cause` when it is one of the known cause names, else `other`: the far end chooses the
    /// cause, so a metric label or any other bounded set must not take it as it comes.
    public static func knownName(_ cause: String) -> String {
        knownNames.contains(cause) ? cause : "other"
    }
}
