import CNice

/// Consent freshness for the selected pairs (RFC 7675), done by the agent rather than libnice,
/// and a quick `.disconnected` when a path goes quiet.
///
/// libnice 0.1.21's own consent freshness has its timers compiled in (agent-priv.h): one
/// check every 4-6 s, never retransmitted, and consent lost 10 s after the last answer. A dead
/// path thus fails only about 10 s late, and a single lost check or answer leaves a gap of 8-12 s,
/// so on a working path with 5% loss each way it failed the session within a minute
/// (`DeadPathTests`). Its properties change none of this, so the agent turns it off.
///
/// Instead, every `tick` this asks the kernel when the pair's sockets last received anything
/// (`SocketActivity`, which also sees the STUN that libnice reads and keeps to itself). After
/// `probeInterval` of quiet it sends the peer an authenticated Binding request on the pair (a
/// consent check, RFC 7675 §5.1; libnice drops the answer, the kernel records its arrival).
/// After `disconnectTimeout` of quiet the path is silent (`.disconnected`); heard again, it is
/// not. After `consentTimeout` of quiet, consent is lost: the session fails and stops sending.
/// Unlike RFC 7675, anything received counts, not only answers to our checks: libnice gives
/// no way to tell them apart.
///
/// Only on the network thread.
/// Unchecked: confined to its agent's network loop thread (asserted in debug builds).
final class PathWatch: @unchecked Sendable {
    static let tick: Duration = .milliseconds(250)
    static let probeInterval: Duration = .milliseconds(500)

    let disconnectTimeout: Duration?
    let consentTimeout: Duration
    private(set) var isSilent = false
    private(set) var consentLost = false
    var timer: UInt32 = 0
    private var activity = SocketActivity()
    private var lastHeard: [Int: ContinuousClock.Instant] = [:]
    private var lastProbe: [Int: ContinuousClock.Instant] = [:]
    /// The base address of each component's relayed local candidate, if it is one.
    private var relayBases: [Int: SocketName] = [:]
    /// The tie-breaker of our ICE-CONTROLLING/ICE-CONTROLLED attribute; libnice keeps its own private.
    private let tieBreaker = UInt64.random(in: 0...UInt64.max)
    /// Its agent's loop, the one thread that may touch it.
    private let loop: NetworkLoop

    init(loop: NetworkLoop, disconnectTimeout: Duration?, consentTimeout: Duration) {
        self.loop = loop
        self.disconnectTimeout = disconnectTimeout
        self.consentTimeout = consentTimeout
    }

    /// A newly selected pair starts out heard (its check just succeeded).
    func pairSelected(component: Int, local: UnsafePointer<NiceCandidate>, now: ContinuousClock.Instant = .now) {
        loop.assertOnLoopThread("a path watch's selected pair")
        lastHeard[component] = now
        lastProbe[component] = nil
        var base = local.pointee.base_addr
        let (host, port) = NiceCandidateText.address(&base)
        relayBases[component] = local.pointee.type == NICE_CANDIDATE_TYPE_RELAYED ? SocketName(host: host, port: port) : nil
    }

    /// Looks at every component with a selected pair; returns true when `isSilent` or
    /// `consentLost` changed. Once consent is lost it stays lost.
    func check(_ generation: Generation, now: ContinuousClock.Instant = .now) -> Bool {
        loop.assertOnLoopThread("a path watch's check")
        guard !consentLost else { return false }
        var longestQuiet: Duration = .zero
        for component in generation.selectedPairs.keys {
            let heard = activity.lastReceive(
                agent: generation.agent, stream: generation.streamID, component: component, relayBase: relayBases[component],
                relayStreams: &generation.relayStreams, now: now)
            var last = lastHeard[component] ?? now
            if let heard, heard > last { last = heard }
            lastHeard[component] = last
            let quiet = now - last
            longestQuiet = max(longestQuiet, quiet)
            if quiet >= Self.probeInterval, lastProbe[component].map({ now - $0 >= Self.probeInterval }) ?? true {
                probe(generation, component: component)
                lastProbe[component] = now
            }
        }
        let silent = disconnectTimeout.map { longestQuiet >= $0 } ?? false
        let lost = longestQuiet >= consentTimeout
        let changed = silent != isSilent || lost != consentLost
        isSilent = silent
        consentLost = lost
        return changed
    }

    private func probe(_ generation: Generation, component: Int) {
        guard let remote = generation.remoteCredentials, let priority = generation.probePriorities[component] else { return }
        // libnice may have switched roles to settle a conflict; probe in the role it holds now.
        let controlling = GObjectProperties.bool(generation.agent, "controlling-mode")
        let request = PathProbe.request(
            localUfrag: generation.credentials.ufrag, remote: remote, priority: priority,
            controlling: controlling, tieBreaker: tieBreaker)
        request.withUnsafeBufferPointer { bytes in
            _ = nice_agent_send(generation.agent, generation.streamID, UInt32(component), UInt32(bytes.count), UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self))
        }
    }
}

/// The Binding request that probes a selected pair: what RFC 8445 §7.1.2 asks of a
/// connectivity check (USERNAME, PRIORITY, the role with a tie-breaker, MESSAGE-INTEGRITY keyed
/// with the peer's password, FINGERPRINT), without USE-CANDIDATE, which RFC 7675 reuses as its
/// consent check.
enum PathProbe {
    static func request(localUfrag: String, remote: ICECredentials, priority: UInt32, controlling: Bool, tieBreaker: UInt64) -> [UInt8] {
        var message = STUNMessage.request(STUNMessage.binding)
        let role: STUNMessage.Attribute = controlling ? .iceControlling : .iceControlled
        message.attributes = [
            (STUNMessage.Attribute.username.rawValue, Array("\(remote.ufrag):\(localUfrag)".utf8)),
            (STUNMessage.Attribute.priority.rawValue, STUNMessage.bigEndian(priority)),
            (role.rawValue, STUNMessage.bigEndian(UInt32(tieBreaker >> 32)) + STUNMessage.bigEndian(UInt32(tieBreaker & 0xFFFF_FFFF))),
        ]
        return message.encoded(integrityKey: Array(remote.password.utf8), fingerprint: true)
    }

    /// The priority a peer-reflexive candidate from this local candidate would have
    /// (RFC 8445 §7.1.1): type preference 110, the local candidate's own local preference.
    static func priority(localCandidatePriority: UInt32, component: Int) -> UInt32 {
        (110 << 24) | (localCandidatePriority & 0x00FF_FF00) | UInt32(256 - component)
    }
}
