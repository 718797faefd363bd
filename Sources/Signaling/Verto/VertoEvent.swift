/// What a Verto session reports to its owner.
package enum VertoEvent: Sendable, Equatable {
    case socketOpened(url: String)
    case socketClosed(WebSocketClosure)
    case loggedIn(sessid: String)
    case clientReady(reattachedSessions: [String])
    case gatewayState(String)
    /// Calls may be placed and received.
    case ready
    case incomingCall(VertoOffer)
    /// The server re-offers a call after we logged in again with the same sessid.
    case attachOffer(VertoOffer)
    case ringing(VertoCallProgress)
    case earlyMedia(VertoCallProgress)
    case answered(VertoCallProgress)
    case remoteHangup(callID: String, cause: HangupCause)
    case remoteCandidate(VertoCandidate)
    case remoteEndOfCandidates(callID: String)
    case info(callID: String?, params: JSONValue)
    /// The server pushed a hold change or a media update for a call.
    case modify(callID: String, action: String, params: JSONValue)
    case display(callID: String, params: JSONValue)
    /// The server asks us to renegotiate (a relayed ICE restart or a re-attach on the other
    /// side): answer with `VertoSession.answerMediaUpdate`, which completes this request.
    /// `reattach` marks a re-attached party's description relayed by the server, which returns
    /// our answer to no one.
    case mediaUpdateRequest(requestID: JSONRPCID, callID: String, offer: String, reattach: Bool)
    case punted
    /// A failure that is not the answer to one of our requests: a malformed frame, a login or
    /// gateway failure, a keepalive that went unanswered.
    case error(SignalingError)
}

/// The outcome of one of our requests.
package struct VertoCompletion: Sendable, Equatable {
    package let id: JSONRPCID
    package let method: String
    package let result: Result<JSONValue, SignalingError>
}
