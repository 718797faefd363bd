import Foundation
import Logging
import Signaling

/// A voice client: logs in to a Verto/Telnyx server, places calls and receives them. Several
/// calls can run at once; all share the process's signalling, network and media threads.
public actor VoiceClient {
    public nonisolated let configuration: VoiceClientConfiguration
    public nonisolated let events: AsyncStream<VoiceClientEvent>
    let eventSink: AsyncStream<VoiceClientEvent>.Continuation
    let verto: VertoClient
    /// Every call's signalling: the one socket, in the calls' words.
    let signalling: VertoCallSignalling
    let logger: Logger
    var calls: [String: Call] = [:]
    /// Each call's signalling events, handled in order by the call's own task (`deliver`).
    private var inboxes: [String: AsyncStream<CallSignallingEvent>.Continuation] = [:]
    /// Invites refused because `configuration.maximumCalls` calls were already in progress.
    public private(set) var refusedIncomingCalls = 0
    private var pump: Task<Void, Never>?
    /// Reconnection state (VoiceClient+Recovery.swift).
    var recovery = RecoveryState()

    public init(configuration: VoiceClientConfiguration, logger: Logger = Logger(label: "parley.client")) {
        self.configuration = configuration
        self.logger = logger
        verto = VertoClient(url: configuration.server, configuration: configuration.verto, socketOptions: configuration.socket, logger: logger)
        signalling = VertoCallSignalling(client: verto)
        (events, eventSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(256))
    }

    /// Opens the socket, logs in, and returns once calls can be made.
    public func connect() async throws(ParleyError) {
        if pump == nil {
            let stream = verto.events
            // Unstructured: the client's event pump lives as long as the client, across the caller's connects and disconnects.
            pump = Task { [weak self] in
                for await event in stream { await self?.route(event) }
            }
        }
        recovery.userDisconnected = false
        recovery.gaveUp = false
        do {
            try await verto.connect()
        } catch {
            logger.debug("could not log in to \(configuration.server): \(error)")
            throw ParleyError(error)
        }
        await noteSocketEndpoints()
        startWatchingNetwork()
    }

    /// Hangs up every call (each ends `ended-by-unregister`) and closes the socket.
    public func disconnect() async {
        recovery.userDisconnected = true
        await stopRecovery()
        for call in calls.values { await call.endByUnregister() }
        await verto.disconnect()
        pump?.cancel()
        pump = nil
        eventSink.finish()
    }

    /// Places a call. It is dialing when this returns; follow `call.events` for the rest.
    public func dial(_ destination: String, options: DialOptions = DialOptions()) async throws(ParleyError) -> Call {
        guard !destination.isEmpty else { throw ParleyError(kind: .configuration, message: "the destination is empty") }
        guard !options.delayedOffer else { throw ParleyError(kind: .configuration, message: "a delayed offer (an invite without SDP) is SIP's alone") }
        let call = makeCall(id: RandomIdentifier.uuid(), direction: .outgoing, remoteParty: destination,
                            media: configuration.dialMedia(options.media ?? configuration.media))
        calls[call.id] = call
        var options = options
        if options.callerName.isEmpty { options.callerName = configuration.callerName }
        if options.callerNumber.isEmpty { options.callerNumber = configuration.callerNumber }
        try await call.dial(destination: destination, options: options)
        return call
    }

    public var activeCalls: [Call] { Array(calls.values) }

    public func call(id: String) throws(ParleyError) -> Call {
        guard let call = calls[id] else { throw ParleyError(kind: .callNotFound, message: "no call with id \(id)") }
        return call
    }

    // MARK: Inside

    private func makeCall(id: String, direction: CallDirection, remoteParty: String, media: MediaOptions? = nil) -> Call {
        let policy = configuration.reconnection
        var onPathLost: (@Sendable (Call) async -> Void)?
        if policy.isEnabled {
            onPathLost = { [weak self] call in await self?.pathLost(call) }
        }
        return Call(id: id, direction: direction, remoteParty: remoteParty, signalling: signalling,
                    media: media ?? configuration.media, logger: logger, reconnectTimeout: policy.reconnectTimeout, onPathLost: onPathLost) { [weak self] id in
            await self?.forget(id)
        }
    }

    private func forget(_ id: String) {
        calls[id] = nil
        inboxes.removeValue(forKey: id)?.finish()
    }

    /// Hands `event` to `call` without waiting for the call to handle it. The events of one
    /// socket arrive here one at a time, and handling one may wait: on the call's media (a leg
    /// operation on its shard's network thread, busy with the media of every call on it) or on
    /// the server (a transfer's new invite). Awaited here, that wait held up every other call's
    /// events, invites and byes included (docs/performance.md, "Call setup"). Each call's
    /// events still reach it in the order they came.
    private func deliver(_ event: CallSignallingEvent, to call: Call) {
        if let inbox = inboxes[call.id] {
            inbox.yield(event)
            return
        }
        let (stream, inbox) = AsyncStream.makeStream(of: CallSignallingEvent.self, bufferingPolicy: .bufferingOldest(Self.callInboxLimit))
        inboxes[call.id] = inbox
        Self.handleInOrder(stream, on: call)
        inbox.yield(event)
    }

    /// A call handles a handful of events in its life; a server that floods one call faster than
    /// it can handle them loses the excess instead of growing the client's memory without bound.
    static let callInboxLimit = 1024

    /// Not isolated to the client: the task hops straight to the call for each event.
    private nonisolated static func handleInOrder(_ events: AsyncStream<CallSignallingEvent>, on call: Call) {
        // Unstructured: one call's events in order for the call's life, started from a synchronous route; ends with the stream.
        Task {
            for await event in events { await call.handle(event) }
        }
    }

    private func route(_ event: VertoEvent) async {
        switch event {
        case .socketOpened:
            await noteSocketEndpoints()
            eventSink.yield(.connected)
        case .socketClosed(let closure):
            eventSink.yield(.disconnected(reason: closure.description))
            await socketDropped()
        case .ready:
            eventSink.yield(.ready)
        case .incomingCall(let offer):
            await offered(offer)
        case .punted:
            recovery.punted = true
            eventSink.yield(.error(ParleyError(kind: .socket, message: "the server closed this session because the same login connected elsewhere")))
        case .error(let error):
            eventSink.yield(.error(ParleyError(error)))
        case .mediaUpdateRequest(let requestID, let callID, _, _):
            guard let call = calls[callID], let (_, update) = signalling.callEvent(event) else {
                return await signalling.mediaUpdateReply(requestID: requestID, callID: callID)(.failure(.noSuchCall))
            }
            // Its own task: answering may wait for a fresh gathering, and other events must not.
            // Unstructured: answering may wait for a fresh gathering, and the client's other events must not.
            Task { await call.handle(update) }
        case .attachOffer(let offer):
            reattachOffered(offer)
        case .clientReady(let reattached):
            await serverReattached(reattached)
        default:
            if let (callID, callEvent) = signalling.callEvent(event), let call = calls[callID] { deliver(callEvent, to: call) }
        }
    }

    private func offered(_ offer: VertoOffer) async {
        guard calls[offer.callID] == nil else { return }
        guard calls.count < configuration.maximumCalls else {
            refusedIncomingCalls += 1
            logger.warning("refused an incoming call: \(calls.count) calls already in progress (maximumCalls)")
            // The reply is not awaited: a flood of invites must not leave a task per invite
            // waiting out the server's request timeout.
            try? await verto.send { session, now throws(SignalingError) in
                try session.bye(callID: offer.callID, cause: HangupCause(cause: "USER_BUSY", causeCode: 17), now: now)
            }
            eventSink.yield(.refusedCall(callID: offer.callID, callsInProgress: calls.count))
            return
        }
        let caller = offer.callerNumber ?? offer.callerName ?? "unknown"
        let call = makeCall(id: offer.callID, direction: .incoming, remoteParty: caller)
        calls[call.id] = call
        var incoming = IncomingCall(
            call: call, callerName: offer.callerName, callerNumber: offer.callerNumber, calleeName: offer.calleeName,
            calleeNumber: offer.calleeNumber, headers: offer.customHeaders, clientState: offer.clientState, offer: offer.sdp)
        incoming.callerTrickles = offer.params["trickle"]?.boolValue == true
        // Not awaited: a server that never answers the ringing acknowledgement would hold up
        // every later event by its request timeout (HostileServerCallTests). An unstructured
        // task has no ordering with what follows: the acknowledgement may go out after the
        // offer is reported, even after the call is answered.
        // Unstructured: the ringing acknowledgement must not hold up the offer's report.
        if configuration.ringingFeedback { Task { await call.sendRinging() } }
        eventSink.yield(.incomingCall(incoming))
    }
}
