import Locking
import Signaling

/// Trickle ICE between a call's two sides (docs/signaling.md, "Trickle ICE"). Trickle is opt-in
/// per side: the caller's invite or the callee's answer says `trickle: true`. A side that did not
/// opt in gets every candidate of the other inside the SDP it is sent (held until the sender's
/// end-of-candidates, or `candidateWait`), never a `candidate` message; `endOfCandidates` goes,
/// as a notification, only to a side that trickles.
struct SwitchTrickle {
    var callerTrickles = false
    /// Unknown (nil) until the callee answers: until then it is sent what a side that does not
    /// trickle needs.
    var calleeTrickles: Bool?
    var callerEnded = false
    var calleeEnded = false
    /// How many of each side's trickled candidates the other side has, in an SDP or trickled.
    var callerDelivered = 0
    var calleeDelivered = 0
    var callerEndDelivered = false
    var calleeEndDelivered = false
    /// Whether the other side has each side's description (the invite, the answer).
    var inviteSent = false
    var answerSent = false
    /// An invite or answer waiting for its sender's candidates.
    var held: HeldDescription?
}

struct HeldDescription {
    enum Kind { case invite, answer }
    let kind: Kind
    /// The message's params but its `sdp`, which is the sender's with its candidates when it goes.
    let params: [String: JSONValue]
    let deadline: Double
}

extension SwitchCore {
    /// The invite from the caller: at once when its SDP is complete (the caller does not trickle),
    /// else once its candidates end, with them inside, since the callee's own mode is not known
    /// before it answers.
    mutating func offerToCallee(_ callID: String, params: [String: JSONValue], now: Double) {
        guard let call = calls[callID] else { return }
        if call.trickle.callerTrickles && !call.trickle.callerEnded {
            calls[callID]?.trickle.held = HeldDescription(kind: .invite, params: params, deadline: now + configuration.candidateWait.inSeconds)
        } else {
            sendInvite(callID, params: params)
        }
    }

    /// The answer from the callee: held like an invite when the callee trickles and the caller
    /// does not.
    mutating func answerToCaller(_ callID: String, params: [String: JSONValue], now: Double) {
        guard let call = calls[callID] else { return }
        if call.trickle.calleeTrickles == true && !call.trickle.callerTrickles && !call.trickle.calleeEnded {
            calls[callID]?.trickle.held = HeldDescription(kind: .answer, params: params, deadline: now + configuration.candidateWait.inSeconds)
        } else {
            sendAnswer(callID, params: params)
        }
    }

    /// A candidate or end-of-candidates from `party`: kept for the SDP the other side will get,
    /// or relayed at once to a side that trickles and has `party`'s description.
    mutating func trickled(_ candidate: String?, in callID: String, by party: SwitchParty, params: JSONValue) {
        guard let call = calls[callID] else { return }
        let fromCaller = call.isCaller(party)
        if let candidate {
            calls[callID]?.trickled(candidate, by: party)
        } else if fromCaller {
            calls[callID]?.trickle.callerEnded = true
        } else {
            calls[callID]?.trickle.calleeEnded = true
        }
        if let held = call.trickle.held, (held.kind == .invite) == fromCaller {
            if candidate == nil { releaseHeld(callID) }
            return
        }
        if fromCaller ? call.trickle.inviteSent : call.trickle.answerSent {
            deliverCandidates(of: party, in: callID, sdpMid: params["sdpMid"], sdpMLineIndex: params["sdpMLineIndex"])
        }
    }

    /// Sends what waits past its deadline.
    mutating func releaseExpiredDescriptions(now: Double) {
        for (callID, call) in calls {
            if let held = call.trickle.held, now >= held.deadline { releaseHeld(callID) }
        }
    }

    var nextCandidateDeadline: Double? {
        calls.values.compactMap { $0.trickle.held?.deadline }.min()
    }

    /// A re-offer or re-answer from `party` starts its candidates again.
    mutating func restartCandidates(of party: SwitchParty, in callID: String) {
        guard let call = calls[callID] else { return }
        if call.isCaller(party) {
            calls[callID]?.callerCandidates = []
            calls[callID]?.trickle.callerDelivered = 0
            calls[callID]?.trickle.callerEnded = false
            calls[callID]?.trickle.callerEndDelivered = false
        } else {
            calls[callID]?.calleeCandidates = []
            calls[callID]?.trickle.calleeDelivered = 0
            calls[callID]?.trickle.calleeEnded = false
            calls[callID]?.trickle.calleeEndDelivered = false
        }
    }

    /// Whether `party` takes trickled candidates.
    func trickles(_ party: SwitchParty, in call: SwitchCall) -> Bool {
        call.isCaller(party) ? call.trickle.callerTrickles : call.trickle.calleeTrickles == true
    }

    /// A notification: nothing answers it, and nothing waits for an answer.
    mutating func sendNotification(_ name: String, params: JSONValue, to peer: Int) {
        send(JSONRPCMessage.notificationFrame(method: methodPrefix(for: peer) + name, params: params), to: peer)
    }

    // MARK: Inside

    private mutating func releaseHeld(_ callID: String) {
        guard let held = calls[callID]?.trickle.held else { return }
        calls[callID]?.trickle.held = nil
        switch held.kind {
        case .invite: sendInvite(callID, params: held.params)
        case .answer: sendAnswer(callID, params: held.params)
        }
    }

    private mutating func sendInvite(_ callID: String, params: [String: JSONValue]) {
        guard let call = calls[callID], let calleePeer = peer(of: call.callee), let callerPeer = peer(of: call.caller) else { return }
        var params = params
        params["sdp"] = .string(SDPCandidates.adding(call.callerCandidates, to: call.callerSDP))
        calls[callID]?.trickle.inviteSent = true
        calls[callID]?.trickle.callerDelivered = call.callerCandidates.count
        calls[callID]?.trickle.callerEndDelivered = call.trickle.callerEnded
        sendRequest("invite", params: .object(params), to: calleePeer)
        calls[callID]?.phase = .ringing
        sendRequest("ringing", params: ["callID": .string(callID), "caller_id_name": .string(call.callerName), "caller_id_number": .string(call.callerNumber),
                                        "callee_id_name": .string(call.destination), "callee_id_number": .string(call.destination),
                                        "dialogParams": ["custom_headers": .array([])], "display_direction": "inbound"], to: callerPeer)
    }

    /// The answer carries the callee's candidates when the caller does not trickle, and
    /// `trickle: true` when the callee does, so a caller that trickles knows it may go on.
    private mutating func sendAnswer(_ callID: String, params: [String: JSONValue]) {
        guard let call = calls[callID], let calleeSDP = call.calleeSDP else { return }
        var params = params
        let calleeTrickles = call.trickle.calleeTrickles == true
        if call.trickle.callerTrickles && calleeTrickles {
            params["sdp"] = .string(calleeSDP)
            params["trickle"] = true
        } else {
            params["sdp"] = .string(SDPCandidates.adding(call.calleeCandidates, to: calleeSDP))
            calls[callID]?.trickle.calleeDelivered = call.calleeCandidates.count
            calls[callID]?.trickle.calleeEndDelivered = call.trickle.calleeEnded
        }
        // After early media the caller has the callee's SDP: a second one would be a second
        // answer to one offer, which a browser refuses (docs/verto-protocol.md §5.5).
        if call.earlySDP != nil { params["sdp"] = nil }
        calls[callID]?.trickle.answerSent = true
        if let callerPeer = peer(of: call.caller) { sendRequest("answer", params: .object(params), to: callerPeer) }
        // Each side's candidates the other could not take before it was known to trickle.
        deliverCandidates(of: call.callee, in: callID)
        deliverCandidates(of: call.caller, in: callID)
    }

    /// `party`'s candidates the other side has not had, trickled to it if it takes them.
    private mutating func deliverCandidates(of party: SwitchParty, in callID: String, sdpMid: JSONValue? = nil, sdpMLineIndex: JSONValue? = nil) {
        guard let call = calls[callID], let other = call.other(than: party), trickles(other, in: call), let otherPeer = peer(of: other) else { return }
        let fromCaller = call.isCaller(party)
        let candidates = fromCaller ? call.callerCandidates : call.calleeCandidates
        let delivered = fromCaller ? call.trickle.callerDelivered : call.trickle.calleeDelivered
        for candidate in candidates.dropFirst(delivered) {
            sendRequest("candidate", params: ["callID": .string(callID), "candidate": .string(candidate),
                                              "sdpMid": sdpMid ?? "0", "sdpMLineIndex": sdpMLineIndex ?? 0], to: otherPeer)
        }
        let ended = fromCaller ? call.trickle.callerEnded : call.trickle.calleeEnded
        let endDelivered = fromCaller ? call.trickle.callerEndDelivered : call.trickle.calleeEndDelivered
        if ended && !endDelivered { sendNotification("endOfCandidates", params: ["callID": .string(callID)], to: otherPeer) }
        if fromCaller {
            calls[callID]?.trickle.callerDelivered = candidates.count
            calls[callID]?.trickle.callerEndDelivered = ended
        } else {
            calls[callID]?.trickle.calleeDelivered = candidates.count
            calls[callID]?.trickle.calleeEndDelivered = ended
        }
    }
}
