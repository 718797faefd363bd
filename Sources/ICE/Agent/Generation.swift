import CNice
import Synchronization

/// One NiceAgent with one stream: the first ICE session of an `ICEAgent`, or the session an ICE
/// restart makes. A restart makes a new generation (fresh sockets on the current addresses, new
/// credentials) while the previous one keeps carrying media until the new one selects a pair.
/// Touched only on its loop's thread, except by `AgentCore.send` on the media clock's thread,
/// which reads `closed` (an atomic: written by the loop, read per packet without a lock) and the
/// constants, and calls `nice_agent_send`, which libnice allows from any thread.
/// Unchecked: per-packet fields are constants or atomics; the rest is confined to the network loop thread.
final class Generation: @unchecked Sendable {
    let number: Int
    let agent: OpaquePointer
    let streamID: UInt32
    let credentials: ICECredentials
    let componentCount: Int
    /// The agent's count of its sessions not yet released (`ICEAgent.sessionsAlive`).
    private let alive: SessionCount

    /// Set at creation, cleared when libnice has closed the agent.
    var owner: AgentCore? {
        didSet { unretainedOwner = owner.map { Unmanaged.passUnretained($0) } }
    }
    /// `owner` without a reference count, for the receive callback, which borrows it per packet
    /// (`LibNiceSignals.onReceive`).
    private(set) var unretainedOwner: Unmanaged<AgentCore>?
    private let closedFlag = Atomic<Bool>(false)
    /// Set once, on the loop's thread, when the agent starts closing.
    var closed: Bool {
        get { closedFlag.load(ordering: .acquiring) }
        set { closedFlag.store(newValue, ordering: .releasing) }
    }
    var gatheringStarted = false
    var gatheringDone = false
    var candidatesReleased = false
    var bufferedCandidates: [String] = []
    var localCandidateCount = 0
    var relayServersAllocated: Set<Int> = []
    var collectionTimer: UInt32 = 0
    /// Per component, the libnice socket source last marked can-recurse
    /// (`UnblockedSocketSources`). A source freed and another made at the same address would go
    /// unmarked: it would only cost the blocking it always cost.
    var unblockedSources: [UnsafeMutablePointer<GSource>?]

    var hasRemoteCredentials: Bool { remoteCredentials != nil }
    /// For our own probes of the selected pair; the password is a secret, never logged.
    var remoteCredentials: ICECredentials?
    var pendingRemoteCandidates: [RemoteCandidate] = []
    var remoteCandidatesInFlight = 0
    var remoteEndOfCandidates = false
    var peerGatheringDoneSignalled = false

    var componentStates: [Int: UInt32] = [:]
    var selectedPairs: [Int: ICESelectedPair] = [:]
    /// PRIORITY for probes of each component's selected pair.
    var probePriorities: [Int: UInt32] = [:]
    /// Started when the first pair is selected.
    var pathWatch: PathWatch?
    /// This agent's TCP connections to TURN servers, if it has TCP or TLS relays.
    var relayStreams: RelayStreams?

    init?(number: Int, context: OpaquePointer, role: ICEAgentConfiguration.Role, componentCount: Int, relayOnly: Bool,
          alive: SessionCount, credentials: ICECredentials = .random()) {
        // Consent freshness is the agent's own (PathWatch): libnice's fails lossy paths. Without
        // it and without keepalive checks, libnice keeps NAT bindings with Binding indications
        // and never fails a selected pair by itself.
        let options = NiceAgentOption(NICE_AGENT_OPTION_ICE_TRICKLE.rawValue)
        guard let agent = nice_agent_new_full(context, NICE_COMPATIBILITY_RFC5245, options) else { return nil }
        GObjectProperties.set(agent, "keepalive-conncheck", bool: false)
        GObjectProperties.set(agent, "controlling-mode", bool: role == .controlling)
        GObjectProperties.set(agent, "ice-tcp", bool: false)
        GObjectProperties.set(agent, "force-relay", bool: relayOnly)
        GObjectProperties.set(agent, "upnp", bool: false)
        let stream = nice_agent_add_stream(agent, UInt32(componentCount))
        guard stream != 0 else {
            g_object_unref(UnsafeMutableRawPointer(agent))
            return nil
        }
        nice_agent_set_local_credentials(agent, stream, credentials.ufrag, credentials.password)
        self.number = number
        self.agent = agent
        self.streamID = stream
        self.credentials = credentials
        self.componentCount = componentCount
        self.unblockedSources = Array(repeating: nil, count: componentCount)
        self.alive = alive
        alive.count.add(1, ordering: .relaxed)
    }

    deinit {
        alive.count.subtract(1, ordering: .relaxed)
    }

    var isConnected: Bool {
        (1...componentCount).allSatisfy { component in
            guard let state = componentStates[component] else { return false }
            return state == NICE_COMPONENT_STATE_CONNECTED.rawValue || state == NICE_COMPONENT_STATE_READY.rawValue
        }
    }

    /// The aggregate of the components' states, as one connection state.
    var connectionState: ICEConnectionState {
        let states = (1...componentCount).map { componentStates[$0] ?? NICE_COMPONENT_STATE_DISCONNECTED.rawValue }
        if states.contains(NICE_COMPONENT_STATE_FAILED.rawValue) { return .failed }
        if states.allSatisfy({ $0 == NICE_COMPONENT_STATE_READY.rawValue }) { return .completed }
        if isConnected { return .connected }
        if states.contains(NICE_COMPONENT_STATE_CONNECTING.rawValue) { return .checking }
        if states.contains(NICE_COMPONENT_STATE_GATHERING.rawValue) { return .gathering }
        return gatheringStarted ? .gathering : .new
    }
}

/// An agent's sessions not yet released: each restart makes one and the selection of its pair
/// retires the previous, so this returns to one however many restarts a call goes through
/// (Tests/ICETests/RestartReleaseTests.swift).
final class SessionCount: Sendable {
    let count = Atomic<Int>(0)
}
