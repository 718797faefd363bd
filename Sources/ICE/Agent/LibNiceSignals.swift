import CNice

/// The C side of a generation: libnice signal handlers and the receive callback. Each gets the
/// generation as user data (retained until libnice has finished closing the agent).
enum LibNiceSignals {
    private typealias CandidateHandler = @convention(c) (OpaquePointer?, UnsafeMutablePointer<NiceCandidate>?, gpointer?) -> Void
    private typealias GatheringDoneHandler = @convention(c) (OpaquePointer?, guint, gpointer?) -> Void
    private typealias StateHandler = @convention(c) (OpaquePointer?, guint, guint, guint, gpointer?) -> Void
    private typealias PairHandler = @convention(c) (OpaquePointer?, guint, guint, UnsafeMutablePointer<NiceCandidate>?, UnsafeMutablePointer<NiceCandidate>?, gpointer?) -> Void

    private static func generation(_ data: gpointer?) -> (Generation, AgentCore)? {
        guard let data else { return nil }
        let generation = Unmanaged<Generation>.fromOpaque(data).takeUnretainedValue()
        guard !generation.closed, let owner = generation.owner else { return nil }
        return (generation, owner)
    }

    private static let onCandidate: CandidateHandler = { _, candidate, data in
        guard let candidate, let (generation, core) = generation(data), candidate.pointee.stream_id == generation.streamID else { return }
        core.localCandidateFound(generation, candidate)
    }

    private static let onGatheringDone: GatheringDoneHandler = { _, stream, data in
        guard let (generation, core) = generation(data), stream == generation.streamID else { return }
        core.gatheringDone(generation)
    }

    private static let onState: StateHandler = { _, stream, component, state, data in
        guard let (generation, core) = generation(data), stream == generation.streamID else { return }
        core.componentStateChanged(generation, component: Int(component), to: state)
    }

    private static let onPair: PairHandler = { _, stream, component, local, remote, data in
        guard let local, let remote, let (generation, core) = generation(data), stream == generation.streamID else { return }
        core.pairSelected(generation, component: Int(component), local: local, remote: remote)
    }

    /// Per packet, the generation and its owner are borrowed, not retained: libnice holds the
    /// generation (`connect`), and the generation its owner, until the close that ends these
    /// callbacks has completed, on this thread. Both are weakly referenced too (timers), which
    /// sends every retain and release of them down the runtime's slow path (a side table).
    private static let onReceive: NiceAgentRecvFunc = { _, _, component, length, buffer, data in
        guard let buffer, let data else { return }
        Unmanaged<Generation>.fromOpaque(data)._withUnsafeGuaranteedRef { generation in
            guard !generation.closed, let core = generation.unretainedOwner else { return }
            UnblockedSocketSources.allowRecursion(generation, component: Int(component))
            core._withUnsafeGuaranteedRef { $0.received(UnsafeRawBufferPointer(start: buffer, count: Int(length)), component: Int(component)) }
        }
    }

    static func connect(_ generation: Generation) {
        let data = Unmanaged.passRetained(generation).toOpaque()
        let object = gpointer(generation.agent)
        g_signal_connect_data(object, "new-candidate-full", unsafeBitCast(onCandidate, to: GCallback.self), data, nil, GConnectFlags(0))
        g_signal_connect_data(object, "candidate-gathering-done", unsafeBitCast(onGatheringDone, to: GCallback.self), data, nil, GConnectFlags(0))
        g_signal_connect_data(object, "component-state-changed", unsafeBitCast(onState, to: GCallback.self), data, nil, GConnectFlags(0))
        g_signal_connect_data(object, "new-selected-pair-full", unsafeBitCast(onPair, to: GCallback.self), data, nil, GConnectFlags(0))
    }

    static func attachReceive(_ generation: Generation, component: Int, context: OpaquePointer) {
        let data = Unmanaged.passUnretained(generation).toOpaque()
        nice_agent_attach_recv(generation.agent, generation.streamID, UInt32(component), context, onReceive, data)
    }

    /// On the network thread: no handler runs after this returns; the generation is released
    /// once libnice has closed its sockets and TURN allocations.
    static func disconnectAndClose(_ generation: Generation) {
        let data = Unmanaged.passUnretained(generation).toOpaque()
        g_signal_handlers_disconnect_matched(gpointer(generation.agent), G_SIGNAL_MATCH_DATA, 0, 0, nil, nil, data)
        if generation.gatheringStarted {
            for component in 1...generation.componentCount {
                nice_agent_attach_recv(generation.agent, generation.streamID, UInt32(component), nil, nil, nil)
            }
        }
        nice_agent_close_async(generation.agent, { object, _, data in
            g_object_unref(UnsafeMutableRawPointer(object))
            guard let data else { return }
            let generation = Unmanaged<Generation>.fromOpaque(data).takeRetainedValue()
            generation.owner = nil
        }, data)
    }
}
