import CNice
import Foundation
import Logging

/// An ICE agent on libnice (RFC 8445, full mode): one stream, one or two components. Every method
/// may be called from any thread; events arrive in order on `events`. Packets are sent with
/// `send` and received by the handler given to `setReceiveHandler`, on the thread of `loop`.
package final class ICEAgent: Sendable {
    package let events: AsyncStream<ICEEvent>
    private let core: AgentCore

    /// `loop` is the network thread the agent lives on for good: its sockets, timers, signals
    /// and received packets (a media engine's shard gives each call its own).
    package init(configuration: ICEAgentConfiguration, loop: NetworkLoop = .shared, logger: Logger = Logger(label: "parley.ice")) throws(ICEError) {
        let validated: ICEAgentConfiguration
        do {
            validated = try configuration.validated()
        } catch {
            throw .configuration(error)
        }
        let (stream, continuation) = AsyncStream<ICEEvent>.makeStream(bufferingPolicy: .unbounded)
        events = stream
        core = try AgentCore(configuration: validated, loop: loop, continuation: continuation, logger: logger)
    }

    deinit {
        core.close()
    }

    /// The credentials of the current ICE session; a restart changes them.
    package var localCredentials: ICECredentials { core.localCredentials }

    /// Resolves the servers, opens TLS to `turns:` servers and starts gathering. Candidates
    /// follow as events (`.localCandidate`, then `.gatheringComplete`).
    package func startGathering() async throws(ICEError) {
        try await core.startGathering()
    }

    package func setRemoteCredentials(ufrag: String, password: String) {
        core.setRemoteCredentials(ufrag: ufrag, password: password)
    }

    /// Adds one remote candidate, `candidate:...` with or without `a=`, before or after the
    /// remote credentials. A `.local` (mDNS) address is resolved if the system can, else skipped.
    package func addRemoteCandidate(_ line: String) throws(ICEError) {
        core.addRemoteCandidate(try RemoteCandidate(line))
    }

    /// The peer has sent all its candidates (end-of-candidates, or a vanilla description).
    package func remoteEndOfCandidates() {
        core.remoteEndOfCandidates()
    }

    /// Starts a new ICE session (new credentials, new gathering on the current addresses); the
    /// current pair keeps carrying packets until the new session selects one.
    ///
    /// `keepingCredentials` starts the new session with the current ufrag and password: for a
    /// peer that re-gathers but cannot tell the other side new credentials (a relaying server
    /// that forwards a re-attached party's description without returning our answer).
    package func restart(keepingCredentials: Bool = false) throws(ICEError) {
        try core.restart(keepingCredentials: keepingCredentials)
    }

    /// Takes on a new peer without a new session: the same sockets, candidates and credentials,
    /// checks with the peer's credentials and candidates that follow (`setRemoteCredentials`,
    /// `addRemoteCandidate`). For a peer that answered a description of ours it was re-sent
    /// (a browser re-attaching from a new peer connection, docs/ice.md).
    package func restartRemoteSide() throws(ICEError) {
        try core.restartRemoteSide()
    }

    /// Sends one packet on the selected pair of `component` (1 = RTP, 2 = RTCP). Returns false
    /// when there is no selected pair or the socket refused it. Allocates nothing.
    @discardableResult
    package func send(_ bytes: UnsafeRawBufferPointer, component: Int = 1) -> Bool {
        core.send(bytes, component: component)
    }

    /// Sets the receiver of every packet (buffer, component), called on the network thread. The
    /// buffer is valid only during the call.
    package func setReceiveHandler(_ handler: @escaping @Sendable (UnsafeRawBufferPointer, Int) -> Void) {
        core.setReceiveHandler(handler)
    }

    package var selectedPair: ICESelectedPair? { core.selectedPair }

    /// This agent's ICE sessions not yet released (one, plus a restart's until its pair is
    /// selected; none once closed and libnice is done): a restart must not keep the old one.
    package var sessionsAlive: Int { core.sessionsAlive.count.load(ordering: .relaxed) }

    /// Releases sockets and TURN allocations and ends `events`.
    package func close() {
        core.close()
    }
}
