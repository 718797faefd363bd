import Signaling

/// Call methods: routing an invite, relaying what one side says to the other.
extension SwitchCore {
    mutating func invite(id: JSONRPCID, params: JSONValue, from party: SwitchParty, peer: Int, now: Double) {
        let dialog = params["dialogParams"] ?? .object([:])
        guard let callID = dialog["callID"]?.stringValue ?? dialog["callId"]?.stringValue, !callID.isEmpty else {
            return sendError(id: id, code: -32002, message: "CallID missing", to: peer)
        }
        guard let sdp = params["sdp"]?.stringValue, !sdp.isEmpty else {
            return sendError(id: id, code: -32002, message: "SDP missing", to: peer)
        }
        guard calls[callID] == nil else { return sendError(id: id, code: -32002, message: "CALL EXISTS", to: peer) }
        let destination = dialog["destination_number"]?.stringValue ?? ""
        guard case .client(let callerSessid) = party, let callerLogin = sessions[callerSessid]?.login else { return }
        let callerName = dialog["caller_id_name"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } ?? callerLogin
        let callerNumber = dialog["caller_id_number"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } ?? callerLogin

        let callee: SwitchParty
        // The newest login of the destination takes the call, as a SIP registrar that replaces
        // an older contact would route it.
        if let session = sessions.values.filter({ $0.login == destination && $0.peer != nil && $0.sessid != callerSessid })
            .max(by: { ($0.loggedInAt, $0.sessid) < ($1.loggedInAt, $1.sessid) }) {
            callee = .client(sessid: session.sessid)
        } else if destination == callerLogin {
            sendResult(id: id, ["callID": .string(callID), "message": "CALL CREATED", "sessid": .string(callerSessid)], to: peer)
            sendRequest("bye", params: ["callID": .string(callID), "cause": "USER_BUSY", "causeCode": 17, "sipCode": 486,
                                        "sipReason": .string("\(destination) called itself: log in as another user to call \(destination)")], to: peer)
            return
        } else {
            // Accept, then clear with the cause a PSTN switch gives an unknown number.
            sendResult(id: id, ["callID": .string(callID), "message": "CALL CREATED", "sessid": .string(callerSessid)], to: peer)
            sendRequest("bye", params: ["callID": .string(callID), "cause": "UNALLOCATED_NUMBER", "causeCode": 1, "sipCode": 404,
                                        "sipReason": .string("\(destination.isEmpty ? "no destination" : destination) is not a user or bot here")], to: peer)
            return
        }
        let headers = dialog["custom_headers"] ?? .array([])
        calls[callID] = SwitchCall(callID: callID, caller: party, callee: callee, callerSDP: sdp, calleeSDP: nil,
                                   callerName: callerName, callerNumber: callerNumber, destination: destination, invitedAt: now)
        sendResult(id: id, ["callID": .string(callID), "message": "CALL CREATED", "sessid": .string(callerSessid)], to: peer)
        actions.append(.activity(.callRouted(callID: callID, from: callerLogin, to: destination)))

        guard self.peer(of: callee) != nil else { return }
        var offer: [String: JSONValue] = [
            "callID": .string(callID), "sdp": .string(sdp),
            "caller_id_name": .string(callerName), "caller_id_number": .string(callerNumber),
            "callee_id_name": .string(destination), "callee_id_number": .string(destination),
            // As FreeSWITCH and Telnyx send an invite to their clients: verto.js shows the caller
            // only for "outbound".
            "display_direction": "outbound", "dialogParams": ["custom_headers": headers],
        ]
        if let state = dialog["clientState"] { offer["client_state"] = state }
        if params["trickle"]?.boolValue == true {
            offer["trickle"] = true
            calls[callID]?.trickle.callerTrickles = true
        }
        offerToCallee(callID, params: offer, now: now)
    }

    mutating func answer(id: JSONRPCID, params: JSONValue, from party: SwitchParty, peer: Int, now: Double) {
        guard let call = call(for: id, params: params, party: party, peer: peer) else { return }
        guard call.callee == party, call.phase != .active else {
            return sendError(id: id, code: -32002, message: "CALL DOES NOT EXIST", extra: ["callID": .string(call.callID)], to: peer)
        }
        // After early media the caller has the callee's SDP already; the answer may leave it out.
        guard let sdp = params["sdp"]?.stringValue.flatMap({ $0.isEmpty ? nil : $0 }) ?? call.earlySDP else {
            return sendError(id: id, code: -32002, message: "SDP missing", to: peer)
        }
        calls[call.callID]?.calleeSDP = sdp
        calls[call.callID]?.phase = .active
        calls[call.callID]?.trickle.calleeTrickles = params["trickle"]?.boolValue == true
        sendResult(id: id, ["callID": .string(call.callID), "message": "CALL ANSWERED"], to: peer)
        actions.append(.activity(.callAnswered(callID: call.callID)))
        answerToCaller(call.callID, params: ["callID": .string(call.callID)], now: now)
    }

    /// The callee's media before its answer (early media, docs/verto-protocol.md §5.4): its
    /// answer SDP goes to the caller as `media`, once; the call still rings.
    mutating func earlyMedia(id: JSONRPCID, params: JSONValue, from party: SwitchParty, peer: Int) {
        guard let call = call(for: id, params: params, party: party, peer: peer) else { return }
        guard call.callee == party, call.phase == .ringing, call.earlySDP == nil else {
            return sendError(id: id, code: -32002, message: "early media is for a call ringing at its callee, once",
                             extra: ["callID": .string(call.callID)], to: peer)
        }
        guard let sdp = params["sdp"]?.stringValue, !sdp.isEmpty else { return sendError(id: id, code: -32002, message: "SDP missing", to: peer) }
        calls[call.callID]?.earlySDP = sdp
        calls[call.callID]?.calleeSDP = sdp
        sendResult(id: id, ["callID": .string(call.callID), "message": "EARLY MEDIA"], to: peer)
        var media = partyFields(call)
        media["callID"] = .string(call.callID)
        media["sdp"] = .string(sdp)
        relay("media", media, of: call, from: party)
    }

    /// A client's answer to our attach re-offer: its new SDP goes to the other side as a media
    /// update, whose answer reaches the client that re-attached as its candidates when that
    /// client trickles (Verto has no message for an answer to an answer): every answer reaches
    /// the side that made the offer.
    mutating func reattached(id: JSONRPCID, params: JSONValue, from party: SwitchParty, peer: Int, now: Double) {
        guard let call = call(for: id, params: params, party: party, peer: peer) else { return }
        guard call.phase == .active else {
            return sendError(id: id, code: -32002, message: "Cannot attach to a call that has not been answered.", to: peer)
        }
        guard let sdp = params["sdp"]?.stringValue, !sdp.isEmpty else { return sendError(id: id, code: -32002, message: "SDP missing", to: peer) }
        updateSDP(of: call.callID, from: peer, sdp: sdp)
        sendResult(id: id, ["callID": .string(call.callID), "message": "CALL ATTACHED"], to: peer)
        guard let other = call.other(than: party), let otherPeer = self.peer(of: other) else { return }
        let relayID = sendRequest("modify", params: ["callID": .string(call.callID), "action": "updateMedia", "sdp": .string(sdp), "reattach": true], to: otherPeer)
        relayed.add(relayID, method: "reattach", now: now, timeout: configuration.relayTimeout,
                    context: RelayedRequest(originPeer: peer, originID: id, callID: call.callID, method: "reattach"))
    }

    /// The other side's answer to a re-attach (nil when it failed: the attach stands all the same).
    mutating func completeReattach(_ request: RelayedRequest, answer: String?, from peer: Int) {
        guard let answer else { return }
        updateSDP(of: request.callID, from: peer, sdp: answer)
        guard let sessid = links[request.originPeer]?.sessid, let call = calls[request.callID] else { return }
        let attached = SwitchParty.client(sessid: sessid)
        guard trickles(attached, in: call) else { return }
        for candidate in SDPCandidates.lines(in: answer) {
            sendRequest("candidate", params: ["callID": .string(request.callID), "candidate": .string(candidate), "sdpMid": "0", "sdpMLineIndex": 0],
                        to: request.originPeer)
        }
        sendNotification("endOfCandidates", params: ["callID": .string(request.callID)], to: request.originPeer)
    }

    mutating func bye(id: JSONRPCID, params: JSONValue, from party: SwitchParty, peer: Int) {
        guard let call = call(for: id, params: params, party: party, peer: peer) else { return }
        let code = params["causeCode"]?.intValue
        let cause = HangupCause(cause: params["cause"]?.stringValue ?? (code == 17 ? "USER_BUSY" : "NORMAL_CLEARING"), causeCode: code ?? 16,
                                sipCode: params["sipCode"]?.intValue, sipReason: params["sipReason"]?.stringValue)
        sendResult(id: id, ["callID": .string(call.callID), "message": "CALL ENDED", "cause": .string(cause.cause),
                            "causeCode": .integer(cause.causeCode ?? 16)], to: peer)
        endCall(call.callID, cause: cause, by: party)
    }

    mutating func modify(id: JSONRPCID, params: JSONValue, from party: SwitchParty, peer: Int, now: Double) {
        guard let call = call(for: id, params: params, party: party, peer: peer) else { return }
        guard let action = params["action"]?.stringValue else { return sendError(id: id, code: -32002, message: "action missing", to: peer) }
        switch action {
        case "hold", "unhold", "toggleHold":
            let holding = action == "hold" || (action == "toggleHold" && !call.held.contains(party))
            if holding { calls[call.callID]?.held.insert(party) } else { calls[call.callID]?.held.remove(party) }
            sendResult(id: id, ["callID": .string(call.callID), "action": .string(action), "holdState": holding ? "held" : "active"], to: peer)
            relay("modify", ["callID": .string(call.callID), "action": holding ? "hold" : "unhold", "holdState": holding ? "held" : "active"],
                  of: call, from: party)
        case "updateMedia":
            guard call.phase == .active else {
                return sendError(id: id, code: -32002, message: "Cannot update a call that has not been answered.", to: peer)
            }
            guard let sdp = params["sdp"]?.stringValue, !sdp.isEmpty else { return sendError(id: id, code: -32002, message: "SDP missing", to: peer) }
            guard let other = call.other(than: party), let otherPeer = self.peer(of: other) else {
                return sendError(id: id, code: -32002, message: "MEDIA ERROR: the other party cannot renegotiate now", to: peer)
            }
            updateSDP(of: call.callID, from: peer, sdp: sdp)
            let relayID = sendRequest("modify", params: ["callID": .string(call.callID), "action": "updateMedia", "sdp": .string(sdp)], to: otherPeer)
            relayed.add(relayID, method: "updateMedia", now: now, timeout: configuration.relayTimeout,
                        context: RelayedRequest(originPeer: peer, originID: id, callID: call.callID, method: "updateMedia"))
        case "transfer":
            transfer(id: id, call: call, params: params, from: party, peer: peer)
        default:
            sendError(id: id, code: -32002, message: "action not supported: \(action)", to: peer)
        }
    }

    mutating func info(id: JSONRPCID, params: JSONValue, from party: SwitchParty, peer: Int) {
        guard let call = call(for: id, params: params, party: party, peer: peer) else { return }
        guard let digits = params["dtmf"]?.stringValue, !digits.isEmpty,
            digits.allSatisfy({ "0123456789*#ABCDabcd".contains($0) })
        else { return sendError(id: id, code: -32602, message: "dtmf must be digits 0-9, *, # or A-D", to: peer) }
        sendResult(id: id, ["callID": .string(call.callID), "message": "SENT"], to: peer)
        relay("info", ["callID": .string(call.callID), "dtmf": .string(digits)], of: call, from: party)
    }

    /// Forwarded to the other side only if it trickles (SwitchCandidates.swift).
    mutating func trickle(id: JSONRPCID, name: String, params: JSONValue, from party: SwitchParty, peer: Int) {
        guard let call = call(for: id, params: params, party: party, peer: peer) else { return }
        sendResult(id: id, ["callID": .string(call.callID), "message": "OK"], to: peer)
        if name == "endOfCandidates" {
            return trickled(nil, in: call.callID, by: party, params: params)
        }
        guard let candidate = params["candidate"]?.stringValue, !candidate.isEmpty else { return }
        trickled(candidate, in: call.callID, by: party, params: params)
    }

    // MARK: Helpers

    /// The call a request names, if `party` is in it; otherwise answers with the FreeSWITCH error.
    private mutating func call(for id: JSONRPCID, params: JSONValue, party: SwitchParty, peer: Int) -> SwitchCall? {
        let dialog = params["dialogParams"]
        guard let callID = [params["callID"], dialog?["callID"], dialog?["callId"], params["callId"]].lazy.compactMap({ $0?.stringValue }).first else {
            sendError(id: id, code: -32002, message: "CallID missing", to: peer)
            return nil
        }
        guard let call = calls[callID], call.caller == party || call.callee == party else {
            sendError(id: id, code: -32002, message: "CALL DOES NOT EXIST", extra: ["callID": .string(callID)], to: peer)
            return nil
        }
        return call
    }

    /// Sends `method` to the other side of `call`, on its socket.
    private mutating func relay(_ method: String, _ params: [String: JSONValue], of call: SwitchCall, from party: SwitchParty) {
        guard let other = call.other(than: party), let otherPeer = peer(of: other) else { return }
        sendRequest(method, params: .object(params), to: otherPeer)
    }

    mutating func endCall(_ callID: String, cause: HangupCause, by party: SwitchParty) {
        guard let call = calls.removeValue(forKey: callID) else { return }
        actions.append(.activity(.callEnded(callID: callID, cause: cause.cause)))
        guard let other = call.other(than: party), let otherPeer = peer(of: other) else { return }
        sendRequest("bye", params: byeParams(callID, cause), to: otherPeer)
    }

    func byeParams(_ callID: String, _ cause: HangupCause) -> JSONValue {
        var params: [String: JSONValue] = ["callID": .string(callID), "cause": .string(cause.cause)]
        if let code = cause.causeCode { params["causeCode"] = .integer(code) }
        if let code = cause.sipCode { params["sipCode"] = .integer(code) }
        if let reason = cause.sipReason { params["sipReason"] = .string(reason) }
        return .object(params)
    }

    mutating func updateSDP(of callID: String, from peer: Int, sdp: String) {
        guard let sessid = links[peer]?.sessid, let call = calls[callID] else { return }
        let party = SwitchParty.client(sessid: sessid)
        if call.caller == party {
            calls[callID]?.callerSDP = sdp
        } else {
            calls[callID]?.calleeSDP = sdp
        }
        restartCandidates(of: party, in: callID)
    }

    /// Caller and callee fields of a re-offered call; both sides see the original direction.
    func partyFields(_ call: SwitchCall) -> [String: JSONValue] {
        ["caller_id_name": .string(call.callerName), "caller_id_number": .string(call.callerNumber),
         "callee_id_name": .string(call.destination), "callee_id_number": .string(call.destination)]
    }
}
