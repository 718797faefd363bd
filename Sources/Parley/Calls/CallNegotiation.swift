import ICE

/// How a call's offer and answer go on its signalling: whether our candidates trickle (and the
/// gate that holds them until the server knows the call), the far end's candidates that came
/// before our media leg existed, an answer sent early (Call+EarlyMedia.swift) that the answer
/// repeats, and whether the far end's answer came in the reply to our invite (Janus), which is a
/// negotiation, not the far end picking up: the call is active once DTLS secures its media.
///
/// A value the call's actor keeps.
struct CallNegotiation {
    /// Our candidates wait until the server knows the call (our invite or answer is through).
    private var gate = TrickleGate()
    /// The far end opted in to trickle (an incoming invite's `trickle` flag; for a call we dial,
    /// until an answer without it).
    private(set) var peerTrickles = true
    private var remoteCandidates: [String] = []
    private var remoteCandidatesEnded = false
    private(set) var earlyAnswer: String?
    private var activeWhenSecured = false

    /// Our candidates are trickled: trickle mode, toward a peer that opted in.
    func trickles(in mode: ICEAgentConfiguration.Mode) -> Bool {
        guard case .trickle = mode else { return false }
        return peerTrickles
    }

    mutating func peerTrickles(_ trickles: Bool) {
        peerTrickles = trickles
    }

    // MARK: Candidates

    /// What to send now for our `candidate` (nil: the end of candidates).
    mutating func pass(_ candidate: String?) -> [String?] {
        gate.pass(candidate)
    }

    /// The server knows the call: what waited, in order.
    mutating func signalled() -> [String?] {
        gate.open()
    }

    /// A candidate of the far end's, before our media leg exists.
    mutating func holdRemoteCandidate(_ line: String) {
        remoteCandidates.append(line)
    }

    mutating func holdRemoteEndOfCandidates() {
        remoteCandidatesEnded = true
    }

    /// The far end's candidates that waited for our media leg, and whether it said it had no more.
    mutating func takeRemoteCandidates() -> (lines: [String], ended: Bool) {
        defer { remoteCandidates = [] }
        return (remoteCandidates, remoteCandidatesEnded)
    }

    // MARK: Answers

    mutating func sentEarly(answer: String) {
        earlyAnswer = answer
    }

    /// The far end's answer came in the reply to our invite.
    mutating func answeredInReply() {
        activeWhenSecured = true
    }

    /// Media is secured: true once, when that makes the call active.
    mutating func securedMakesActive() -> Bool {
        defer { activeWhenSecured = false }
        return activeWhenSecured
    }
}
