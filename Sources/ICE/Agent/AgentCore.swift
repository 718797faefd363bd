import CNice
import Foundation
import Logging
import Locking

/// The state behind `ICEAgent`. libnice is driven only from the network thread, so its signals
/// (which libnice emits on the thread that made the call) also arrive there; `send` is the one
/// call made from other threads, which libnice allows.
/// Unchecked: the libnice agent and its state are confined to its network loop thread (asserted in debug builds); `send` is libnice-safe from any thread.
final class AgentCore: @unchecked Sendable {
    struct State {
        var generations: [Generation] = []
        var sending: Generation? {
            didSet { unretainedSending = sending.map { Unmanaged.passUnretained($0) } }
        }
        /// `sending` without a reference count, for `send` to borrow under the lock.
        private(set) var unretainedSending: Unmanaged<Generation>?
        var receiveHandler: ReceiveHandler?
        var started = false
        var closed = false
        var reportedState: ICEConnectionState = .new
        var relays: [ResolvedRelay] = []
        var stun: (address: String, port: UInt16)?
        var tunnels: [TLSTunnel] = []
        var nextGeneration = 1
    }

    let configuration: ICEAgentConfiguration
    let continuation: AsyncStream<ICEEvent>.Continuation
    let logger: Logger
    let loop: NetworkLoop
    let state = Lock(State())
    let sessionsAlive = SessionCount()

    init(configuration: ICEAgentConfiguration, loop: NetworkLoop, continuation: AsyncStream<ICEEvent>.Continuation, logger: Logger) throws(ICEError) {
        self.configuration = configuration
        self.loop = loop
        self.continuation = continuation
        self.logger = logger
        let first = try makeGeneration()
        state.withLock { $0.generations = [first] }
    }

    var localCredentials: ICECredentials {
        state.withLock { $0.generations.last?.credentials } ?? ICECredentials(ufrag: "", password: "")
    }

    var selectedPair: ICESelectedPair? {
        state.withLock { $0.sending?.selectedPairs[1] }
    }

    private var current: Generation? {
        state.withLock { state in state.closed ? nil : state.generations.last }
    }

    func makeGeneration(credentials: ICECredentials = .random()) throws(ICEError) -> Generation {
        let number = state.withLock { state in
            defer { state.nextGeneration += 1 }
            return state.nextGeneration
        }
        guard let generation = Generation(
            number: number, context: loop.context, role: configuration.role,
            componentCount: configuration.componentCount, relayOnly: configuration.relayOnly, alive: sessionsAlive, credentials: credentials
        ) else {
            throw .libniceFailure("could not create an agent and stream")
        }
        generation.owner = self
        LibNiceSignals.connect(generation)
        return generation
    }

    // MARK: Gathering

    func startGathering() async throws(ICEError) {
        let alreadyStarted = state.withLock { state in
            defer { state.started = true }
            return state.started || state.closed
        }
        guard !alreadyStarted else { return }
        let resolved = try await ServerResolver.resolve(configuration.servers, ipv6: configuration.ipv6)
        var relays: [ResolvedRelay] = []
        var tunnels: [TLSTunnel] = []
        for server in resolved where server.server.kind == .turn {
            if server.server.transport == .tls {
                let tunnel = try await TLSTunnel.open(to: server, caFile: configuration.tlsCertificateAuthorityFile, loop: loop, logger: logger)
                tunnels.append(tunnel)
                relays.append(ResolvedRelay(server: server.server, address: "127.0.0.1", port: tunnel.localPort, tunnel: tunnel))
            } else {
                relays.append(ResolvedRelay(server: server.server, address: server.address, port: server.server.port, tunnel: nil))
            }
        }
        let stun = resolved.first { $0.server.kind == .stun }.map { ($0.address, $0.server.port) }
        let generation = state.withLock { state -> Generation? in
            state.relays = relays
            state.stun = stun
            state.tunnels = tunnels
            return state.closed ? nil : state.generations.last
        }
        guard let generation else {
            // GIO objects are closed on the loop that made them (TLSTunnel is loop-bound).
            loop.perform { [tunnels] in tunnels.forEach { $0.close() } }
            throw .closed
        }
        loop.perform { self.gather(generation) }
    }

    /// On the network thread.
    private func gather(_ generation: Generation) {
        loop.assertOnLoopThread("ICE gathering")
        guard !generation.closed else { return }
        let (relays, stun) = state.withLock { ($0.relays, $0.stun) }
        let addresses: [String]
        do {
            addresses = try LocalAddresses.list(allowedInterfaces: configuration.allowedInterfaces, ipv6: configuration.ipv6)
        } catch {
            fail(error)
            return
        }
        // With no address given, libnice would fall back to every interface (an allow list
        // that matches nothing must fail instead).
        if addresses.isEmpty {
            let names = configuration.allowedInterfaces.isEmpty ? "any interface" : configuration.allowedInterfaces.joined(separator: ", ")
            let up = LocalAddresses.interfacesUp()
            fail(.gatheringFailed(reason: "no usable address on \(names)" + (up.isEmpty ? "" : "; the interfaces up are \(up.joined(separator: ", ")): allow one (--interface NAME)")))
            return
        }
        for address in addresses {
            var niceAddress = NiceAddress()
            nice_address_init(&niceAddress)
            if nice_address_set_from_string(&niceAddress, address) != 0 {
                nice_agent_add_local_address(generation.agent, &niceAddress)
            }
        }
        if let stun {
            GObjectProperties.set(generation.agent, "stun-server", string: stun.address)
            GObjectProperties.set(generation.agent, "stun-server-port", uint: UInt32(stun.port))
        }
        for relay in relays {
            let type = relay.server.transport == .udp ? NICE_RELAY_TYPE_TURN_UDP : NICE_RELAY_TYPE_TURN_TCP
            for component in 1...generation.componentCount {
                nice_agent_set_relay_info(
                    generation.agent, generation.streamID, UInt32(component), relay.address, UInt32(relay.port),
                    relay.server.username ?? "", relay.server.credential ?? "", type)
            }
        }
        for component in 1...generation.componentCount {
            LibNiceSignals.attachReceive(generation, component: component, context: loop.context)
        }
        generation.gatheringStarted = true
        updateState()
        if case .vanilla(let timeout) = configuration.mode {
            generation.collectionTimer = loop.schedule(after: timeout) { [weak generation] in
                guard let generation, !generation.closed else { return }
                generation.collectionTimer = 0
                self.logger.debug("ICE collection timeout", metadata: ["generation": "\(generation.number)"])
                self.releaseCandidates(generation)
            }
        }
        let streamServers = Set(relays.filter { $0.server.transport != .udp }.map { SocketName(host: $0.address, port: Int($0.port)) })
        let streamsBefore = streamServers.isEmpty ? [] : RelayStreams.openStreams()
        let gathering = nice_agent_gather_candidates(generation.agent, generation.streamID)
        if !streamServers.isEmpty {
            generation.relayStreams = RelayStreams(opened: RelayStreams.openStreams().subtracting(streamsBefore), servers: streamServers)
        }
        if gathering == 0 {
            // libnice does not say why; a socket it could not open at the limit is the likely one.
            fail(FileDescriptorLimit.exhausted() ?? .gatheringFailed(reason: "libnice found no interface to gather on"))
        }
    }

    func localCandidateFound(_ generation: Generation, _ candidate: UnsafeMutablePointer<NiceCandidate>) {
        loop.assertOnLoopThread("libnice's new-candidate signal")
        guard let line = NiceCandidateText.line(agent: generation.agent, candidate: candidate) else { return }
        logger.debug("ICE gathered a local candidate", metadata: ["candidate": "\(NiceCandidateText.summary(candidate))", "generation": "\(generation.number)"])
        generation.localCandidateCount += 1
        if candidate.pointee.type == NICE_CANDIDATE_TYPE_RELAYED {
            generation.relayServersAllocated.insert(NiceCandidateText.relayServerIndex(candidate))
        }
        guard generation === current else { return }
        switch configuration.mode {
        case .trickle:
            continuation.yield(.localCandidate(line))
        case .vanilla:
            if !generation.candidatesReleased { generation.bufferedCandidates.append(line) }
        }
    }

    func gatheringDone(_ generation: Generation) {
        loop.assertOnLoopThread("libnice's gathering-done signal")
        guard !generation.gatheringDone else { return }
        logger.debug("ICE gathering done", metadata: ["candidates": "\(generation.localCandidateCount)", "generation": "\(generation.number)"])
        generation.gatheringDone = true
        loop.cancel(generation.collectionTimer)
        generation.collectionTimer = 0
        releaseCandidates(generation)
        diagnoseRelays(generation)
    }

    /// Trickle: end-of-candidates. Vanilla: everything gathered so far, then end-of-candidates.
    private func releaseCandidates(_ generation: Generation) {
        guard !generation.candidatesReleased, generation === current else { return }
        generation.candidatesReleased = true
        for line in generation.bufferedCandidates { continuation.yield(.localCandidate(line)) }
        generation.bufferedCandidates = []
        continuation.yield(.gatheringComplete)
    }

    /// libnice drops a TURN server that refuses us without a word; ask the server ourselves why.
    private func diagnoseRelays(_ generation: Generation) {
        let relays = state.withLock { $0.relays }
        let missing = relays.indices.filter { !generation.relayServersAllocated.contains($0) }.map { relays[$0] }
        let noCandidates = generation.localCandidateCount == 0
        if missing.isEmpty {
            if noCandidates {
                if let exhausted = FileDescriptorLimit.exhausted() { return fail(exhausted) }
                fail(.gatheringFailed(reason: configuration.relayOnly ? "relay-only and no TURN server configured" : "no usable network interface"))
            }
            return
        }
        DispatchQueue.global().async {
            let errors = missing.map { TURNProbe.diagnose($0) }
            self.loop.perform {
                guard !generation.closed else { return }
                if noCandidates, let first = errors.first {
                    for error in errors.dropFirst() { self.continuation.yield(.warning(error)) }
                    self.fail(first)
                } else {
                    for error in errors { self.continuation.yield(.warning(error)) }
                }
            }
        }
    }

    // MARK: Remote side

    func setRemoteCredentials(ufrag: String, password: String) {
        guard let generation = current else { return }
        loop.perform {
            guard !generation.closed else { return }
            nice_agent_set_remote_credentials(generation.agent, generation.streamID, ufrag, password)
            generation.remoteCredentials = ICECredentials(ufrag: ufrag, password: password)
            let pending = generation.pendingRemoteCandidates
            generation.pendingRemoteCandidates = []
            for candidate in pending { self.addParsedCandidate(candidate, to: generation) }
            self.signalPeerGatheringDoneIfReady(generation)
        }
    }

    func addRemoteCandidate(_ candidate: RemoteCandidate) {
        guard let generation = current else { return }
        loop.perform {
            guard !generation.closed else { return }
            if candidate.isMulticastDNS {
                generation.remoteCandidatesInFlight += 1
                MulticastDNSResolver.resolve(candidate.address, ipv6: self.configuration.ipv6) { address in
                    self.loop.perform {
                        generation.remoteCandidatesInFlight -= 1
                        guard !generation.closed else { return }
                        if let address {
                            self.queueOrAdd(candidate.replacingAddress(with: address), to: generation)
                        } else {
                            self.logger.info("skipping a remote mDNS candidate the system cannot resolve", metadata: ["host": "\(candidate.address)"])
                            self.continuation.yield(.warning(.multicastDNSUnresolvable(host: candidate.address)))
                        }
                        self.signalPeerGatheringDoneIfReady(generation)
                    }
                }
            } else {
                self.queueOrAdd(candidate, to: generation)
            }
        }
    }

    private func queueOrAdd(_ candidate: RemoteCandidate, to generation: Generation) {
        if generation.hasRemoteCredentials {
            addParsedCandidate(candidate, to: generation)
        } else {
            generation.pendingRemoteCandidates.append(candidate)
        }
    }

    private func addParsedCandidate(_ candidate: RemoteCandidate, to generation: Generation) {
        guard candidate.component <= generation.componentCount else {
            logger.warning("ignoring a remote candidate for component \(candidate.component) of a \(generation.componentCount)-component stream")
            return
        }
        guard let parsed = nice_agent_parse_remote_candidate_sdp(generation.agent, generation.streamID, "a=" + candidate.line) else {
            logger.warning("libnice rejected a remote candidate", metadata: ["candidate": "\(candidate.line)"])
            return
        }
        defer { nice_candidate_free(parsed) }
        logger.debug("ICE added a remote candidate", metadata: ["candidate": "\(NiceCandidateText.summary(parsed))", "generation": "\(generation.number)"])
        let list = g_slist_append(nil, parsed)
        defer { g_slist_free(list) }
        nice_agent_set_remote_candidates(generation.agent, generation.streamID, UInt32(candidate.component), list)
    }

    func remoteEndOfCandidates() {
        guard let generation = current else { return }
        loop.perform {
            generation.remoteEndOfCandidates = true
            self.signalPeerGatheringDoneIfReady(generation)
        }
    }

    private func signalPeerGatheringDoneIfReady(_ generation: Generation) {
        guard generation.remoteEndOfCandidates, generation.hasRemoteCredentials, !generation.peerGatheringDoneSignalled,
              generation.pendingRemoteCandidates.isEmpty, generation.remoteCandidatesInFlight == 0, !generation.closed
        else { return }
        generation.peerGatheringDoneSignalled = true
        nice_agent_peer_candidate_gathering_done(generation.agent, generation.streamID)
    }

    // MARK: Restart

    func restart(keepingCredentials: Bool) throws(ICEError) {
        let started = state.withLock { $0.started && !$0.closed }
        guard started else { throw .closed }
        let generation = try keepingCredentials ? makeGeneration(credentials: localCredentials) : makeGeneration()
        let accepted = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.generations.append(generation)
            return true
        }
        guard accepted else {
            loop.perform { self.closeGeneration(generation) }
            throw .closed
        }
        logger.info("ICE restart", metadata: ["generation": "\(generation.number)"])
        loop.perform { self.gather(generation) }
    }

    /// A new peer on the current session: its sockets, local candidates and credentials stay
    /// (the peer was given them in a description it answered, and a port that keeps answering
    /// under them must be the one the new checks reach), while the old peer's credentials,
    /// candidates and checks go. libnice's stream restart does that; the local credentials it
    /// draws are set back to ours. The selected pair keeps carrying packets until the new
    /// peer's checks select one, which starts a fresh path watch (a lost consent of the old
    /// peer's pair is not the new one's).
    func restartRemoteSide() throws(ICEError) {
        guard let generation = current, state.withLock({ $0.started }) else { throw .closed }
        let credentials = generation.credentials
        loop.perform {
            guard !generation.closed else { return }
            nice_agent_restart_stream(generation.agent, generation.streamID)
            nice_agent_set_local_credentials(generation.agent, generation.streamID, credentials.ufrag, credentials.password)
            generation.remoteCredentials = nil
            generation.pendingRemoteCandidates = []
            generation.remoteEndOfCandidates = false
            generation.peerGatheringDoneSignalled = false
            generation.selectedPairs = [:]
            if let watch = generation.pathWatch {
                self.loop.cancel(watch.timer)
                generation.pathWatch = nil
            }
            self.logger.info("ICE checks restarted for a new peer on the same session", metadata: ["generation": "\(generation.number)"])
        }
    }

    // MARK: Connectivity

    func componentStateChanged(_ generation: Generation, component: Int, to newState: UInt32) {
        let name = nice_component_state_to_string(NiceComponentState(rawValue: newState)).map { String(cString: $0) } ?? "\(newState)"
        logger.debug("ICE component state", metadata: ["component": "\(component)", "state": "\(name)", "generation": "\(generation.number)"])
        generation.componentStates[component] = newState
        updateState()
    }

    func pairSelected(_ generation: Generation, component: Int, local: UnsafeMutablePointer<NiceCandidate>, remote: UnsafeMutablePointer<NiceCandidate>) {
        loop.assertOnLoopThread("libnice's pair-selected signal")
        let pair = makePair(component: component, local: local, remote: remote)
        generation.selectedPairs[component] = pair
        generation.probePriorities[component] = PathProbe.priority(localCandidatePriority: local.pointee.priority, component: component)
        watchPath(of: generation).pairSelected(component: component, local: local)
        let isCurrent = generation === current
        let retired: [Generation] = state.withLock { state in
            guard isCurrent else { return [] }
            state.sending = generation
            let older = state.generations.filter { $0 !== generation }
            state.generations = [generation]
            return older
        }
        for old in retired {
            logger.info("ICE restart done; closing the previous session", metadata: ["generation": "\(old.number)"])
            closeGeneration(old)
        }
        logger.info("ICE selected pair", metadata: ["pair": "\(pair)"])
        continuation.yield(.selectedPair(pair))
        updateState()
    }

    private func makePair(component: Int, local: UnsafeMutablePointer<NiceCandidate>, remote: UnsafeMutablePointer<NiceCandidate>) -> ICESelectedPair {
        let (localAddress, localPort) = NiceCandidateText.address(&local.pointee.addr)
        let (remoteAddress, remotePort) = NiceCandidateText.address(&remote.pointee.addr)
        var transport: ICEPairTransport = local.pointee.transport == NICE_CANDIDATE_TRANSPORT_UDP ? .udp : .tcp
        if local.pointee.type == NICE_CANDIDATE_TYPE_RELAYED {
            let relays = state.withLock { $0.relays }
            let index = NiceCandidateText.relayServerIndex(local)
            if relays.indices.contains(index) {
                transport = ICEPairTransport(rawValue: relays[index].server.transport.rawValue) ?? .udp
            }
        }
        return ICESelectedPair(
            component: component,
            localAddress: localAddress, localPort: localPort, localType: NiceCandidateText.type(local),
            remoteAddress: remoteAddress, remotePort: remotePort, remoteType: NiceCandidateText.type(remote),
            transport: transport, roundTripTime: nil)
    }

    /// Starts watching the generation's selected pairs for silence and consent (once).
    private func watchPath(of generation: Generation) -> PathWatch {
        if let watch = generation.pathWatch { return watch }
        let watch = PathWatch(loop: loop, disconnectTimeout: configuration.disconnectTimeout, consentTimeout: configuration.consentTimeout)
        generation.pathWatch = watch
        watch.timer = loop.repeating(every: PathWatch.tick) { [weak self, weak generation] in
            guard let self, let generation, !generation.closed else { return false }
            guard watch.check(generation) else { return true }
            let metadata: Logger.Metadata = ["generation": "\(generation.number)"]
            if watch.consentLost {
                self.logger.warning("ICE consent lost: nothing received on the selected pair for \(watch.consentTimeout); no longer sending", metadata: metadata)
                // RFC 7675 §5.1: stop sending on a pair whose consent has expired.
                self.state.withLock { state in
                    if state.sending === generation { state.sending = nil }
                }
            } else {
                self.logger.info(watch.isSilent ? "ICE path silent: nothing received on the selected pair" : "ICE path heard again", metadata: metadata)
            }
            self.updateState()
            return !watch.consentLost
        }
        return watch
    }

    /// A session's state as reported: a connected one whose selected pair has gone silent is
    /// disconnected, and failed once its consent is lost.
    private func reportableState(of generation: Generation) -> ICEConnectionState {
        let state = generation.connectionState
        guard state == .connected || state == .completed, let watch = generation.pathWatch else { return state }
        if watch.consentLost { return .failed }
        return watch.isSilent ? .disconnected : state
    }

    /// Reports the current session's state; while an older session still carries media, the new
    /// one's gathering and checking are not reported as a regression: the older one's state is.
    private func updateState() {
        guard let generation = current else { return }
        var next = reportableState(of: generation)
        let (reported, sending) = state.withLock { ($0.reportedState, $0.sending) }
        if let sending, sending !== generation, ![.connected, .completed, .failed].contains(generation.connectionState) {
            // A restart is under way: it, not the old path's end, decides whether the session fails.
            next = reportableState(of: sending)
            if next == .failed { next = .disconnected }
        }
        // A restarted session that has just selected its pair reports its components' states a
        // moment later; until then it is no regression.
        if !generation.selectedPairs.isEmpty, next == .checking || next == .gathering { return }
        if (reported == .connected || reported == .completed) && (next == .checking || next == .gathering) {
            next = .disconnected
        }
        guard next != reported else { return }
        state.withLock { $0.reportedState = next }
        if next == .failed {
            let error: ICEError = generation.pathWatch?.consentLost == true ? .consentLost(after: configuration.consentTimeout) : .connectivityFailed
            continuation.yield(.failed(error))
        }
        continuation.yield(.state(next))
    }

    private func fail(_ error: ICEError) {
        // The call reports it (an error event, the exit status): an error line here would say it twice.
        logger.info("ICE failed", metadata: ["error": "\(error)"])
        let alreadyFailed = state.withLock { state in
            defer { state.reportedState = .failed }
            return state.reportedState == .failed
        }
        guard !alreadyFailed else { return }
        continuation.yield(.failed(error))
        continuation.yield(.state(.failed))
    }

    // MARK: Data

    func send(_ bytes: UnsafeRawBufferPointer, component: Int) -> Bool {
        // The agent and stream are copied out under the lock, the generation borrowed, not
        // retained: a generation is weakly referenced (its timers), so a retain and release of
        // one per packet would take the runtime's slow path. Holding it never kept the agent
        // open anyway: `closed` does.
        let target = state.withLock { state -> (agent: OpaquePointer, stream: UInt32)? in
            state.unretainedSending?._withUnsafeGuaranteedRef { generation in
                generation.closed ? nil : (generation.agent, generation.streamID)
            }
        }
        guard let target, let base = bytes.baseAddress else { return false }
        let sent = nice_agent_send(target.agent, target.stream, UInt32(component), UInt32(bytes.count), base.assumingMemoryBound(to: CChar.self))
        return sent == bytes.count
    }

    func setReceiveHandler(_ handler: @escaping @Sendable (UnsafeRawBufferPointer, Int) -> Void) {
        let boxed = ReceiveHandler(handler)
        state.withLock { $0.receiveHandler = boxed }
    }

    func received(_ bytes: UnsafeRawBufferPointer, component: Int) {
        loop.assertOnLoopThread("a received packet")
        guard let handler = state.withLock({ $0.receiveHandler }) else { return }
        handler.deliver(bytes, component)
    }

    // MARK: Closing

    func close() {
        let (generations, tunnels) = state.withLock { state -> ([Generation], [TLSTunnel]) in
            guard !state.closed else { return ([], []) }
            state.closed = true
            defer {
                state.generations = []
                state.sending = nil
                state.tunnels = []
            }
            return (state.generations, state.tunnels)
        }
        guard !generations.isEmpty || !tunnels.isEmpty else { return }
        loop.perform {
            generations.forEach(self.closeGeneration)
            tunnels.forEach { $0.close() }
        }
        continuation.finish()
    }

    /// On the network thread.
    private func closeGeneration(_ generation: Generation) {
        loop.assertOnLoopThread("closing an agent")
        guard !generation.closed else { return }
        generation.closed = true
        loop.cancel(generation.collectionTimer)
        if let watch = generation.pathWatch { loop.cancel(watch.timer) }
        LibNiceSignals.disconnectAndClose(generation)
    }
}

/// The receive handler in a box: a closure read out of the generic `Lock.withLock` would be
/// re-abstracted, which allocates once per packet; a class reference is not.
final class ReceiveHandler: Sendable {
    let deliver: @Sendable (UnsafeRawBufferPointer, Int) -> Void

    init(_ deliver: @escaping @Sendable (UnsafeRawBufferPointer, Int) -> Void) {
        self.deliver = deliver
    }
}

struct ResolvedRelay: Sendable {
    let server: ICEServer
    let address: String
    let port: UInt16
    let tunnel: TLSTunnel?
}
