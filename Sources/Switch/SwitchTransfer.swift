import Signaling

/// Blind transfer and forward (`modify` with `action: "transfer"` and a `destination`, as
/// FreeSWITCH's verto client sends it; docs/signaling.md). The switch carries no media, so it
/// cannot bridge the other party to the target itself: it lets go of the call and tells the other
/// party to call the target (a `modify` transfer request of its own), which that party does with
/// new media under the same call id. The party that asked leaves the call.
///
/// FreeSWITCH's verto.js has no handler for an incoming `modify` transfer: a transfer whose
/// other party is verto.js (`SwitchLink.isVertoJS`) is refused (it would sit in a dead call),
/// and verto.js transferring away gets a bye `BLIND_TRANSFER` (800, FreeSWITCH's cause), since
/// it ends its side only on a bye.
extension SwitchCore {
    mutating func transfer(id: JSONRPCID, call: SwitchCall, params: JSONValue, from party: SwitchParty, peer: Int) {
        guard let destination = params["destination"]?.stringValue, !destination.isEmpty else {
            return sendError(id: id, code: -32602, message: "destination missing", to: peer)
        }
        let forwarding = call.phase != .active
        if forwarding, call.callee != party {
            return sendError(id: id, code: -32002, message: "only the called party can forward a call that is not answered", to: peer)
        }
        guard let other = call.other(than: party), let otherPeer = self.peer(of: other) else {
            return sendError(id: id, code: -32002, message: "the other party is not connected and cannot be transferred now", to: peer)
        }
        if links[otherPeer]?.isVertoJS == true {
            let login = sessions.values.first { .client(sessid: $0.sessid) == other }?.login ?? "the other party"
            return sendError(id: id, code: -32002, message: "transfer failed: \(login) is a verto.js client, which cannot follow a transfer", to: peer)
        }
        let target = sessions.values.first { session in
            session.login == destination && session.peer != nil && ![party, other].contains(.client(sessid: session.sessid))
        }
        guard target != nil else {
            return sendError(id: id, code: -32002, message: "transfer failed: \(destination) is not a user or bot here", to: peer)
        }
        calls[call.callID] = nil
        actions.append(.activity(.callTransferred(callID: call.callID, to: destination, forwarded: forwarding)))
        sendResult(id: id, ["callID": .string(call.callID), "action": "transfer", "message": "CALL TRANSFERRED"], to: peer)
        sendRequest("modify", params: ["callID": .string(call.callID), "action": "transfer", "destination": .string(destination)], to: otherPeer)
        if links[peer]?.isVertoJS == true {
            sendRequest("bye", params: byeParams(call.callID, .blindTransfer), to: peer)
        }
    }
}
