import Signaling

/// Session events as JSON, so transcripts can state them.
enum TranscriptEvent {
    static func encode(_ event: VertoEvent) -> JSONValue {
        switch event {
        case .socketOpened(let url): ["socketOpened": .string(url)]
        case .socketClosed(let closure): ["socketClosed": .string(closure.description)]
        case .loggedIn(let sessid): ["loggedIn": ["sessid": .string(sessid)]]
        case .clientReady(let sessions): ["clientReady": ["reattached": .array(sessions.map(JSONValue.string))]]
        case .gatewayState(let state): ["gatewayState": .string(state)]
        case .ready: ["ready": [:]]
        case .incomingCall(let offer): ["incomingCall": encode(offer)]
        case .attachOffer(let offer): ["attachOffer": encode(offer)]
        case .ringing(let progress): ["ringing": encode(progress)]
        case .earlyMedia(let progress): ["earlyMedia": encode(progress)]
        case .answered(let progress): ["answered": encode(progress)]
        case .remoteHangup(let callID, let cause):
            ["remoteHangup": ["callID": .string(callID), "cause": .string(cause.cause), "causeCode": optional(cause.causeCode),
                              "sipCode": optional(cause.sipCode), "sipReason": optional(cause.sipReason), "sipCallID": optional(cause.sipCallID)]]
        case .remoteCandidate(let candidate):
            ["remoteCandidate": ["callID": .string(candidate.callID), "candidate": .string(candidate.candidate),
                                 "sdpMid": optional(candidate.sdpMid), "sdpMLineIndex": optional(candidate.sdpMLineIndex)]]
        case .remoteEndOfCandidates(let callID): ["remoteEndOfCandidates": ["callID": .string(callID)]]
        case .info(let callID, let params): ["info": ["callID": optional(callID), "params": params]]
        case .modify(let callID, let action, let params): ["modify": ["callID": .string(callID), "action": .string(action), "params": params]]
        case .display(let callID, let params): ["display": ["callID": .string(callID), "params": params]]
        case .mediaUpdateRequest(_, let callID, let offer, _): ["mediaUpdateRequest": ["callID": .string(callID), "offer": .string(offer)]]
        case .punted: ["punted": [:]]
        case .error(let error): ["error": ["code": .string(error.code), "message": .string(error.description)]]
        }
    }

    private static func encode(_ offer: VertoOffer) -> JSONValue {
        ["callID": .string(offer.callID), "sdp": .string(offer.sdp), "callerName": optional(offer.callerName),
         "callerNumber": optional(offer.callerNumber), "calleeName": optional(offer.calleeName), "calleeNumber": optional(offer.calleeNumber),
         "customHeaders": headers(offer.customHeaders), "clientState": optional(offer.clientState),
         "telnyxSessionID": optional(offer.telnyxSessionID), "telnyxLegID": optional(offer.telnyxLegID),
         "telnyxCallControlID": optional(offer.telnyxCallControlID)]
    }

    private static func encode(_ progress: VertoCallProgress) -> JSONValue {
        ["callID": .string(progress.callID), "sdp": optional(progress.sdp), "customHeaders": headers(progress.customHeaders),
         "telnyxSessionID": optional(progress.telnyxSessionID), "telnyxLegID": optional(progress.telnyxLegID)]
    }

    private static func headers(_ headers: [CustomHeader]) -> JSONValue {
        .array(headers.map { ["name": .string($0.name), "value": .string($0.value)] })
    }

    private static func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
    private static func optional(_ value: Int?) -> JSONValue { value.map(JSONValue.integer) ?? .null }
}
