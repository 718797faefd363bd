/// The call-level requests a client sends (docs/verto-protocol.md §5), as typed calls on the session.
/// Each returns the request id; the outcome arrives as a `VertoCompletion`.
extension VertoSession {
    @discardableResult
    package mutating func invite(_ dial: VertoDialParameters, sdp: String, now: Double) throws(SignalingError) -> JSONRPCID {
        var dialog = dialogParams(callID: dial.callID, attach: false)
        dialog["destination_number"] = .string(dial.destination)
        dialog["caller_id_name"] = .string(dial.callerName)
        dialog["caller_id_number"] = .string(dial.callerNumber)
        dialog["remote_caller_id_name"] = .string(dial.remoteCallerName)
        if !dial.customHeaders.isEmpty { dialog["custom_headers"] = Self.headers(dial.customHeaders) }
        if let clientState = dial.clientState { dialog["clientState"] = .string(clientState) }
        var params = callParams(dialog: dialog)
        params["sdp"] = .string(sdp)
        if dial.trickle { params["trickle"] = true }
        return try request("invite", params: .object(params), now: now)
    }

    /// Our media before we answer an incoming call (early media, docs/verto-protocol.md §5.4):
    /// the answer SDP in a `media` request; the `answer` follows.
    @discardableResult
    package mutating func earlyMedia(callID: String, sdp: String, trickle: Bool = false, now: Double) throws(SignalingError) -> JSONRPCID {
        var params = callParams(dialog: dialogParams(callID: callID, attach: false))
        params["sdp"] = .string(sdp)
        if trickle { params["trickle"] = true }
        return try request("media", params: .object(params), now: now)
    }

    /// Answers an incoming call (`attach: false`) or a server re-offer after reconnecting (`attach: true`).
    @discardableResult
    package mutating func answer(callID: String, sdp: String, attach: Bool = false, customHeaders: [CustomHeader] = [],
                                trickle: Bool = false, now: Double) throws(SignalingError) -> JSONRPCID {
        var dialog = dialogParams(callID: callID, attach: attach)
        if !customHeaders.isEmpty { dialog["custom_headers"] = Self.headers(customHeaders) }
        var params = callParams(dialog: dialog)
        params["sdp"] = .string(sdp)
        if trickle { params["trickle"] = true }
        return try request(attach ? "attach" : "answer", params: .object(params), now: now)
    }

    @discardableResult
    package mutating func bye(callID: String, cause: HangupCause, now: Double) throws(SignalingError) -> JSONRPCID {
        var params = callParams(dialog: ["callID": .string(callID)])
        params["cause"] = .string(cause.cause)
        if let code = cause.causeCode { params["causeCode"] = .integer(code) }
        if let code = cause.sipCode { params["sipCode"] = .integer(code) }
        if let reason = cause.sipReason { params["sipReason"] = .string(reason) }
        return try request("bye", params: .object(params), now: now)
    }

    /// Hold changes answer with `holdState` ("held" or "active").
    @discardableResult
    package mutating func modify(callID: String, action: HoldAction, now: Double) throws(SignalingError) -> JSONRPCID {
        var params = callParams(dialog: ["callID": .string(callID)])
        params["action"] = .string(action.rawValue)
        return try request("modify", params: .object(params), now: now)
    }

    /// An ICE-restart offer; the result's `sdp` is the answer (docs/verto-protocol.md §5.8).
    @discardableResult
    package mutating func updateMedia(callID: String, offer: String, trickle: Bool = false, now: Double) throws(SignalingError) -> JSONRPCID {
        var params = callParams(dialog: ["callID": .string(callID)])
        params["action"] = "updateMedia"
        params["callID"] = .string(callID)
        params["sdp"] = .string(offer)
        if trickle { params["trickle"] = true }
        return try request("modify", params: .object(params), now: now)
    }

    @discardableResult
    package mutating func info(callID: String, dtmf: String, now: Double) throws(SignalingError) -> JSONRPCID {
        var params = callParams(dialog: ["callID": .string(callID)])
        params["dtmf"] = .string(dtmf)
        return try request("info", params: .object(params), now: now)
    }

    @discardableResult
    package mutating func candidate(_ candidate: VertoCandidate, now: Double) throws(SignalingError) -> JSONRPCID {
        var params = callParams(dialog: ["callID": .string(candidate.callID)])
        params["candidate"] = .string(candidate.candidate)
        params["sdpMid"] = candidate.sdpMid.map(JSONValue.string) ?? .null
        params["sdpMLineIndex"] = .integer(candidate.sdpMLineIndex ?? 0)
        return try request("candidate", params: .object(params), now: now)
    }

    @discardableResult
    package mutating func endOfCandidates(callID: String, now: Double) throws(SignalingError) -> JSONRPCID {
        var params = callParams(dialog: ["callID": .string(callID)])
        params["endOfCandidates"] = true
        return try request("endOfCandidates", params: .object(params), now: now)
    }

    /// Asks the server to deliver calls waiting for this client (push flows, docs/verto-protocol.md §7.2).
    @discardableResult
    package mutating func attachCalls(now: Double) throws(SignalingError) -> JSONRPCID {
        try request("attachCalls", params: ["loginParams": .object([:]), "userVariables": configuration.userVariables], now: now)
    }

    /// Tells the server the incoming call is alerting here (iOS's optional ringing_ack).
    @discardableResult
    package mutating func ringingAck(callID: String, now: Double) throws(SignalingError) -> JSONRPCID {
        try request("ringing_ack", params: ["callID": .string(callID), "sessid": .string(sessid)], now: now)
    }

    private func callParams(dialog: [String: JSONValue]) -> [String: JSONValue] {
        ["sessid": .string(sessid), "User-Agent": .string(configuration.userAgent), "dialogParams": .object(dialog)]
    }

    private func dialogParams(callID: String, attach: Bool) -> [String: JSONValue] {
        ["callID": .string(callID), "audio": true, "video": false, "useStereo": false, "attach": .bool(attach), "screenShare": false]
    }

    private static func headers(_ headers: [CustomHeader]) -> JSONValue {
        .array(headers.map { ["name": .string($0.name), "value": .string($0.value)] })
    }
}
