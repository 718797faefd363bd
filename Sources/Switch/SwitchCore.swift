import CoreMetrics
import Foundation
import Locking
import Signaling

/// The server side of the Verto/Telnyx dialect as a state machine without I/O: logins,
/// readiness, call routing between clients, keepalive pings, and detach /
/// re-attach of calls when a client's socket drops (docs/verto-protocol.md §3, §4, §5, §10.1).
package struct SwitchCore: Sendable {
    package let configuration: SwitchConfiguration
    var links: [Int: SwitchLink] = [:]
    var sessions: [String: SwitchSession] = [:]
    var calls: [String: SwitchCall] = [:]
    var relayed = PendingRequests<RelayedRequest>()
    var nextRequestID = 1
    /// The byes of a shutdown that their clients have not answered yet (SwitchCore+Ending.swift).
    var unansweredShutdownByes: Set<JSONRPCID> = []
    var actions: [SwitchAction] = []

    package init(configuration: SwitchConfiguration) {
        self.configuration = configuration
    }

    package mutating func takeActions() -> [SwitchAction] {
        defer { actions.removeAll() }
        return actions
    }

    /// Calls in progress, for status and tests.
    package var activeCallIDs: [String] { calls.keys.sorted() }

    /// Logged-in users with an open socket.
    package var onlineLogins: [String] {
        sessions.values.filter { $0.peer != nil }.map(\.login).sorted()
    }

    // MARK: Inputs

    package mutating func connected(peer: Int, address: String = "", now: Double) {
        links[peer] = SwitchLink(peer: peer, address: address, lastHeard: now)
    }

    package mutating func disconnected(peer: Int, now: Double) {
        guard let link = links.removeValue(forKey: peer), let sessid = link.sessid, sessions[sessid]?.peer == peer else { return }
        let party = SwitchParty.client(sessid: sessid)
        let detached = calls.values.filter { $0.caller == party || $0.callee == party }.count
        actions.append(.activity(.disconnected(login: link.login ?? "?", callsDetached: detached)))
        if detached > 0 {
            sessions[sessid]?.peer = nil
            sessions[sessid]?.detachedAt = now
        } else {
            sessions[sessid] = nil
        }
    }

    package mutating func received(_ text: String, from peer: Int, now: Double) {
        guard links[peer] != nil else { return }
        links[peer]?.lastHeard = now
        links[peer]?.pingSentAt = nil
        let message: JSONRPCMessage
        do {
            message = try JSONRPCMessage.parse(text)
        } catch {
            send(JSONRPCMessage.errorFrame(id: error.id, error: JSONRPCErrorObject(code: error.responseCode, message: error.reason)), to: peer)
            return
        }
        switch message {
        case .request(let id, let method, let params, _):
            handleRequest(id: id, method: method, params: params, from: peer, now: now)
        case .notification, .errorWithoutID:
            break  // Verto clients send no notifications the switch acts on; neither is answered.
        case .response(let id, let outcome, _):
            handleResponse(id: id, outcome: outcome, from: peer)
        }
    }

    /// Pings idle clients, ends calls whose detach timeout passed, fails relays that got no answer.
    package mutating func tick(now: Double) {
        for (peer, link) in links {
            if let sentAt = link.pingSentAt {
                guard now - sentAt >= configuration.pingTimeout.inSeconds else { continue }
                actions.append(.close(peer: peer, code: 1001, reason: "ping timeout"))
                disconnected(peer: peer, now: now)
            } else if now - link.idleSince >= configuration.pingInterval.inSeconds {
                if link.dialect.answersPings { links[peer]?.pingSentAt = now } else { links[peer]?.lastPingAt = now }
                sendRequest("ping", params: ["serno": .integer(Int(now))], to: peer)
            }
        }
        for session in sessions.values {
            guard let detachedAt = session.detachedAt, now - detachedAt >= configuration.detachTimeout.inSeconds else { continue }
            let party = SwitchParty.client(sessid: session.sessid)
            for call in calls.values where call.caller == party || call.callee == party {
                endCall(call.callID, cause: .recoveryOnTimerExpire, by: party)
            }
            sessions[session.sessid] = nil
        }
        releaseExpiredDescriptions(now: now)
        endUnansweredCalls(now: now)
        for (_, entry) in relayed.expire(now: now) {
            let request = entry.context
            if request.method == "reattach" {
                completeReattach(request, answer: nil, from: request.originPeer)
                continue
            }
            sendError(id: request.originID, code: -32002, message: "MEDIA ERROR: the other party did not answer \(request.method)", to: request.originPeer)
        }
    }

    package var nextDeadline: Double? {
        let pings = links.values.map { link in link.pingSentAt.map { $0 + configuration.pingTimeout.inSeconds } ?? link.idleSince + configuration.pingInterval.inSeconds }
        let detaches = sessions.values.compactMap { $0.detachedAt.map { $0 + configuration.detachTimeout.inSeconds } }
        return (pings + detaches + [relayed.nextDeadline, nextCandidateDeadline, noAnswerDeadline].compactMap { $0 }).min()
    }

    // MARK: Requests from clients

    private mutating func handleRequest(id: JSONRPCID, method: String, params: JSONValue, from peer: Int, now: Double) {
        let (dialect, name) = SwitchDialect.parse(method)
        if let dialect { links[peer]?.spokenDialect = dialect }
        switch name {
        case "login":
            login(id: id, params: params, from: peer, now: now)
            return
        case "ping":
            sendResult(id: id, ["message": "PONG"], to: peer)
            return
        default:
            break
        }
        guard let link = links[peer], let sessid = link.sessid else {
            sendError(id: id, code: -32000, message: "Authentication Required", to: peer)
            return
        }
        let party = SwitchParty.client(sessid: sessid)
        switch name {
        case "gatewayState": gatewayState(id: id, link: link, to: peer)
        case "invite": invite(id: id, params: params, from: party, peer: peer, now: now)
        case "answer": answer(id: id, params: params, from: party, peer: peer, now: now)
        case "media": earlyMedia(id: id, params: params, from: party, peer: peer)
        case "attach": reattached(id: id, params: params, from: party, peer: peer, now: now)
        case "bye": bye(id: id, params: params, from: party, peer: peer)
        case "modify": modify(id: id, params: params, from: party, peer: peer, now: now)
        case "info": info(id: id, params: params, from: party, peer: peer)
        case "candidate", "endOfCandidates": trickle(id: id, name: name, params: params, from: party, peer: peer)
        case "attachCalls", "ringing_ack": sendResult(id: id, ["message": "OK"], to: peer)
        case SwitchFeedback.method: rate(id: id, params: params, login: link.login ?? "?", peer: peer)
        default: sendError(id: id, code: -32601, message: "Invalid Method, Missing Method or Permission Denied", to: peer)
        }
    }

    private mutating func login(id: JSONRPCID, params: JSONValue, from peer: Int, now: Double) {
        let account: SwitchAccount?
        if let token = params["login_token"]?.stringValue, params["login"] == nil {
            account = configuration.account(token: token)
            guard account != nil else { return refuseLogin(id: id, message: "JWT token authentication failed", to: peer) }
        } else {
            // As FreeSWITCH's check_auth: verto.js logs in with its sessid alone and sends its
            // credentials only when told -32000 (docs/verto-protocol.md §14).
            guard case .object = params else { return refuseLogin(id: id, message: "Missing params", to: peer) }
            guard let login = params["login"]?.stringValue, !login.isEmpty else {
                links[peer]?.askedForCredentials = true
                return sendError(id: id, code: -32000, message: "Authentication Required", to: peer)
            }
            guard let password = params["passwd"]?.stringValue, !password.isEmpty else {
                return refuseLogin(id: id, message: "Missing passwd", to: peer)
            }
            account = configuration.account(login: login).flatMap { $0.password == password ? $0 : nil }
            guard account != nil else { return refuseLogin(id: id, message: "Login Incorrect", to: peer) }
        }
        guard let account else { return }
        let sessid = params["sessid"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } ?? RandomIdentifier.uuid()
        if let existing = sessions[sessid] {
            guard existing.login == account.login else { return refuseLogin(id: id, message: "Session in use", to: peer) }
            if let oldPeer = existing.peer, oldPeer != peer {
                // A newer connection took over this sessid: tell the old one and drop it.
                sendRequest("punt", params: [:], to: oldPeer)
                links[oldPeer]?.sessid = nil
                actions.append(.close(peer: oldPeer, code: 1000, reason: "punted"))
            }
        }
        if let previous = sessions.values.first(where: { $0.login == account.login && $0.sessid != sessid && $0.peer != nil }), let previousPeer = previous.peer {
            actions.append(.activity(.loginTakesOver(login: account.login, peer: links[peer]?.address ?? "", previousPeer: links[previousPeer]?.address ?? "")))
        }
        links[peer]?.login = account.login
        links[peer]?.sessid = sessid
        links[peer]?.gatewayRequests = 0
        sessions[sessid] = SwitchSession(sessid: sessid, login: account.login, peer: peer, detachedAt: nil, loggedInAt: now)
        sendResult(id: id, ["message": "logged in", "sessid": .string(sessid)], to: peer)
        actions.append(.activity(.loggedIn(login: account.login, peer: links[peer]?.address ?? "")))

        // Re-offer every call this session left behind, then report which were re-attached (docs/verto-protocol.md §5.11).
        let party = SwitchParty.client(sessid: sessid)
        var reattached: [JSONValue] = []
        for call in calls.values.sorted(by: { $0.callID < $1.callID }) where call.phase == .active {
            guard let other = call.other(than: party), let offer = call.sdp(from: other) else { continue }
            reattached.append(.string(call.callID))
            var params = partyFields(call)
            params["callID"] = .string(call.callID)
            params["sdp"] = .string(offer)
            sendRequest("attach", params: .object(params), to: peer)
        }
        sendRequest("clientReady", params: ["reattached_sessions": .array(reattached)], to: peer)
        if !reattached.isEmpty { actions.append(.activity(.callsReattached(login: account.login, count: reattached.count))) }
    }

    private mutating func refuseLogin(id: JSONRPCID, message: String, to peer: Int) {
        actions.append(.activity(.loginRefused(reason: message, peer: links[peer]?.address ?? "")))
        sendError(id: id, code: -32001, message: message, to: peer)
    }

    private mutating func gatewayState(id: JSONRPCID, link: SwitchLink, to peer: Int) {
        guard let login = link.login, let account = configuration.account(login: login) else { return }
        let state = account.gatewayStates[min(link.gatewayRequests, account.gatewayStates.count - 1)]
        links[peer]?.gatewayRequests += 1
        sendResult(id: id, ["params": ["state": .string(state)], "sessid": .string(link.sessid ?? "")], to: peer)
    }

    // MARK: Responses from clients

    private mutating func handleResponse(id: JSONRPCID, outcome: Result<JSONValue, JSONRPCErrorObject>, from peer: Int) {
        unansweredShutdownByes.remove(id)
        guard let request = relayed.complete(id)?.context else { return }  // acks of invite, ringing, ping…
        if request.method == "reattach" {
            let answer = (try? outcome.get())?["sdp"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            return completeReattach(request, answer: answer, from: peer)
        }
        switch outcome {
        case .success(let result):
            if request.method == "updateMedia", let sdp = result["sdp"]?.stringValue {
                updateSDP(of: request.callID, from: peer, sdp: sdp)
                sendResult(id: request.originID, ["action": "updateMedia", "callID": .string(request.callID), "sdp": .string(sdp)], to: request.originPeer)
            } else {
                sendError(id: request.originID, code: -32002, message: "MEDIA ERROR: the other party sent no SDP", to: request.originPeer)
            }
        case .failure(let error):
            sendError(id: request.originID, code: -32002, message: error.message, to: request.originPeer)
        }
    }

    // MARK: Sending

    mutating func send(_ frame: JSONValue, to peer: Int) {
        var frame = frame
        if case .object(var members) = frame {
            members["voice_sdk_id"] = .string(configuration.voiceSDKID)
            frame = .object(members)
        }
        actions.append(.send(peer: peer, text: frame.serialized))
    }

    mutating func sendResult(id: JSONRPCID, _ result: JSONValue, to peer: Int) {
        send(JSONRPCMessage.resultFrame(id: id, result: result), to: peer)
    }

    mutating func sendError(id: JSONRPCID?, code: Int, message: String, extra: [String: JSONValue] = [:], to peer: Int) {
        var details = extra
        details["code"] = .integer(code)
        details["message"] = .string(message)
        send(JSONRPCMessage.errorFrame(id: id, error: JSONRPCErrorObject(code: code, message: message, details: .object(details))), to: peer)
    }

    /// The method prefix the client on `peer` speaks (docs/verto-protocol.md §14).
    func methodPrefix(for peer: Int) -> String {
        (links[peer]?.dialect ?? .telnyx).prefix
    }

    /// Server requests carry numeric ids (docs/verto-protocol.md §1.2).
    @discardableResult
    mutating func sendRequest(_ name: String, params: JSONValue, to peer: Int) -> JSONRPCID {
        let id = JSONRPCID.number(nextRequestID)
        nextRequestID += 1
        let method = methodPrefix(for: peer) + name
        send(JSONRPCMessage.requestFrame(id: id, method: method, params: params), to: peer)
        // A no-op unless a process bootstrapped swift-metrics (`parley switch --metrics`).
        Counter(label: "parley_switch_messages_relayed_total", dimensions: [("method", method)]).increment()
        return id
    }

    /// The open socket of a client party, if it has one now.
    func peer(of party: SwitchParty) -> Int? {
        guard case .client(let sessid) = party else { return nil }
        return sessions[sessid]?.peer
    }
}
