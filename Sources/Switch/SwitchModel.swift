import Signaling

/// One side of a call the switch carries.
enum SwitchParty: Sendable, Hashable {
    /// A logged-in client, named by its sessid (which survives reconnects).
    case client(sessid: String)
}

/// What the switch wants done; the driver performs it.
package enum SwitchAction: Sendable, Equatable {
    case send(peer: Int, text: String)
    case close(peer: Int, code: UInt16, reason: String)
    /// For people watching the switch (`parley switch` prints these).
    case activity(SwitchActivity)
}

/// What happened on the switch, without secrets or SDP.
package enum SwitchActivity: Sendable, Equatable {
    case loggedIn(login: String, peer: String)
    /// A second session logged in as a login already connected: new calls go to it; the older
    /// session keeps its calls (docs/cli.md, "Switch").
    case loginTakesOver(login: String, peer: String, previousPeer: String)
    case loginRefused(reason: String, peer: String)
    case disconnected(login: String, callsDetached: Int)
    case callRouted(callID: String, from: String, to: String)
    case callAnswered(callID: String)
    case callEnded(callID: String, cause: String)
    /// A party sent the call on: `forwarded` before it was answered, transferred after.
    case callTransferred(callID: String, to: String, forwarded: Bool)
    case callsReattached(login: String, count: Int)
    /// A client rated a call it had been in (`feedback`, SwitchCore+Feedback.swift).
    case callRated(SwitchFeedback)
}

/// A call as the switch sees it.
struct SwitchCall {
    enum Phase { case routing, ringing, active }

    let callID: String
    let caller: SwitchParty
    var callee: SwitchParty
    var phase: Phase = .routing
    var callerSDP: String
    var calleeSDP: String?
    /// The callee's SDP sent as early media before it answered.
    var earlySDP: String? = nil
    var callerName: String
    var callerNumber: String
    var destination: String
    /// When the invite came, on the core's clock: the no-answer timeout counts from there.
    var invitedAt: Double = 0
    var held: Set<SwitchParty> = []
    /// Candidates each side trickled since its last SDP: a re-offer carries them, as a server's
    /// own re-offer would carry its candidates.
    var callerCandidates: [String] = []
    var calleeCandidates: [String] = []
    /// Trickle between the two sides (SwitchCandidates.swift): whether each side opted in, how
    /// many of each side's candidates the other has had, and a description held for a side that
    /// may not trickle until the sender's candidates end.
    var trickle = SwitchTrickle()

    func isCaller(_ party: SwitchParty) -> Bool { party == caller }

    func other(than party: SwitchParty) -> SwitchParty? {
        if party == caller { return callee }
        if party == callee { return caller }
        return nil
    }

    /// The latest SDP `party` sent, with the candidates it trickled since, re-offered to the other
    /// side when that one comes back from a reconnect.
    func sdp(from party: SwitchParty) -> String? {
        guard let sdp = party == caller ? callerSDP : calleeSDP else { return nil }
        return SDPCandidates.adding(party == caller ? callerCandidates : calleeCandidates, to: sdp)
    }

    mutating func trickled(_ candidate: String, by party: SwitchParty) {
        if party == caller { callerCandidates.append(candidate) } else if party == callee { calleeCandidates.append(candidate) }
    }
}

/// One WebSocket connection.
struct SwitchLink {
    let peer: Int
    let address: String
    var login: String?
    var sessid: String?
    var gatewayRequests = 0
    var lastHeard: Double
    /// When our unanswered ping left; the link is dead if nothing arrives within the ping timeout.
    var pingSentAt: Double?
    /// When we last pinged a client that answers no ping (it is not held to the timeout).
    var lastPingAt: Double?
    /// The dialect of the client's latest prefixed request.
    var spokenDialect: SwitchDialect?
    /// It logged in as verto.js does: a `login` without credentials first, which we answered
    /// -32000, then its credentials.
    var askedForCredentials = false

    /// The dialect our requests to this client use: the one it speaks; before it has sent a
    /// prefixed request, `verto.` after verto.js's login and `telnyx_rtc.` otherwise
    /// (Telnyx's SDKs send their credentials at once and need `telnyx_rtc.clientReady`).
    var dialect: SwitchDialect { spokenDialect ?? (askedForCredentials ? .verto : .telnyx) }

    /// verto.js, as its login and its methods show: it follows no `modify` transfer and ends a
    /// call only on a bye. (Parley's client with `verto.` names logs in at once, and follows.)
    var isVertoJS: Bool { askedForCredentials && dialect == .verto }

    /// Since when the link has been quiet: the last frame heard, or the last ping it need not answer.
    var idleSince: Double { max(lastHeard, lastPingAt ?? lastHeard) }
}

/// A logged-in session; outlives its socket while its calls wait to be re-attached.
struct SwitchSession {
    let sessid: String
    let login: String
    var peer: Int?
    var detachedAt: Double?
    /// When it last logged in: of several sessions of one login, the newest takes new calls.
    var loggedInAt: Double = 0
}

/// A request the switch sent to a client whose answer it must relay.
struct RelayedRequest {
    let originPeer: Int
    let originID: JSONRPCID
    let callID: String
    let method: String
}
