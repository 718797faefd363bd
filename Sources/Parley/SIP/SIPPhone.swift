import Foundation
import Logging
import Signaling

/// One SIP account registered over one flow, placing and taking calls (docs/sip.md, "Calls"):
/// the SIP counterpart of a logged-in `VoiceClient`. Its calls are ordinary `Call`s on the one
/// call driver; each has a `SIPCallSignalling`, to which the phone routes the requests the
/// server sends by Call-ID.
public actor SIPPhone {
    /// The flow and its registration; new ones after a lost flow (SIPPhone+FlowRecovery.swift).
    var endpoint: SIPEndpoint
    var registration: SIPRegistration
    let account: SIPAccount
    /// RFC 5626's instance (`+sip.instance`, `reg-id`) every flow of this phone registers with.
    let instance: SIPInstance
    let media: MediaOptions
    let logger: Logger
    /// Each dialog's signalling by its Call-ID (a call that followed a REFER has two).
    var calls: [String: SIPCallSignalling] = [:]
    /// Each dialog's requests, handed over in order without waiting for the call (`SIPCallInbox`).
    private var inboxes: [String: SIPCallInbox] = [:]
    var callsByID: [String: Call] = [:]
    private var router: Task<Void, Never>?
    var flowRecovery: SIPFlowRecovery
    /// The phone's own news (reconnecting, registered again, gave up), beside the offered calls.
    private let news: AsyncStream<VoiceClientEvent>
    let newsSink: AsyncStream<VoiceClientEvent>.Continuation
    /// Calls offered to us, ringing (180 sent) until answered, rejected or cancelled.
    public nonisolated let incomingCalls: AsyncStream<IncomingCall>
    private let incomingSink: AsyncStream<IncomingCall>.Continuation

    /// Opens a flow to `server` (a `sip:` or `ws://` URL, docs/sip.md "Transports") and
    /// registers `user@domain` with `password`; the phone takes calls from then on. A `sips:` or
    /// `wss://` server's certificate is verified as `tls` says, and `clientCertificate` is shown
    /// to one that asks for ours.
    public static func register(server: String, user: String, domain: String, password: String, media: MediaOptions,
                                tls: TLSVerification = .systemTrustStore, clientCertificate: TLSClientCertificate? = nil, expiry: UInt32 = 600,
                                logger: Logger = Logger(label: "parley.sip")) async throws(ParleyError) -> SIPPhone {
        try await register(server: server, user: user, domain: domain, password: password, media: media, tls: tls, clientCertificate: clientCertificate,
                           expiry: expiry, timers: SIPTimers(), logger: logger)
    }

    /// As above, with the transaction timers given: tests against hostile servers shorten T1.
    static func register(server: String, user: String, domain: String, password: String, media: MediaOptions, tls: TLSVerification,
                         clientCertificate: TLSClientCertificate? = nil, expiry: UInt32, timers: SIPTimers, logger: Logger) async throws(ParleyError) -> SIPPhone {
        let phone = try await open(server: server, user: user, domain: domain, password: password, media: media, tls: tls,
                                   clientCertificate: clientCertificate, expiry: expiry, timers: timers, logger: logger)
        do {
            try await phone.registration.register()
        } catch {
            await phone.stopRecovery()
            await phone.endpoint.close()
            throw ParleyError(error)
        }
        return phone
    }

    /// Opens a flow to `server` without registering (`parley call --no-register`): the phone
    /// places calls, each INVITE's 401 or 407 answered with the account's credentials, and is
    /// offered none, as the server has no binding to reach it by.
    public static func connect(server: String, user: String, domain: String, password: String, media: MediaOptions,
                               tls: TLSVerification = .systemTrustStore, clientCertificate: TLSClientCertificate? = nil,
                               logger: Logger = Logger(label: "parley.sip")) async throws(ParleyError) -> SIPPhone {
        try await open(server: server, user: user, domain: domain, password: password, media: media, tls: tls, clientCertificate: clientCertificate,
                       expiry: 0, timers: SIPTimers(), logger: logger)
    }

    private static func open(server: String, user: String, domain: String, password: String, media: MediaOptions, tls: TLSVerification,
                             clientCertificate: TLSClientCertificate?, expiry: UInt32, timers: SIPTimers, logger: Logger) async throws(ParleyError) -> SIPPhone {
        let address: SIPServerAddress
        do {
            address = try SIPServerAddress(parsing: server)
        } catch {
            throw ParleyError(kind: .configuration, message: "\(error)")
        }
        var options = SIPFlowOptions()
        options.tls = tls
        options.clientCertificate = clientCertificate
        let endpoint = SIPEndpoint(server: address, options: options, timers: timers)
        do {
            try await endpoint.open()
        } catch {
            throw ParleyError(.sipTransport(error))
        }
        let phone = SIPPhone(endpoint: endpoint, account: SIPAccount(user: user, domain: domain, password: password), expiry: expiry,
                             media: media, flowOptions: options, logger: logger)
        await phone.startRouting()
        await phone.watchNetwork()
        return phone
    }

    private init(endpoint: SIPEndpoint, account: SIPAccount, expiry: UInt32, media: MediaOptions, flowOptions: SIPFlowOptions, logger: Logger) {
        self.endpoint = endpoint
        flowRecovery = SIPFlowRecovery(options: flowOptions)
        let instance = SIPInstance.random()
        self.instance = instance
        registration = SIPRegistration(endpoint: endpoint, account: account, expiry: expiry, instance: instance)
        self.account = account
        self.media = Self.withoutTrickle(media)
        self.logger = logger
        (incomingCalls, incomingSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
        (news, newsSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
    }

    /// SIP offers and answers carry every candidate: a trickling configuration gathers first.
    /// Digits go in RTP at 8000 Hz beside Opus when that is the far end's telephone-event.
    static func withoutTrickle(_ media: MediaOptions) -> MediaOptions {
        var vanilla = media
        vanilla.sendsEventsAtEightKilohertzBesideOtherClocks = true
        guard case .trickle = media.iceMode else { return vanilla }
        vanilla.iceMode = .vanilla(collectionTimeout: .seconds(3))
        return vanilla
    }

    /// Calls `destination` (a user in our domain, `user@host` or a `sip:` URI), with the
    /// phone's media options or the call's own (`options.media`); the call is dialing when this
    /// returns.
    public func dial(_ destination: String, options: DialOptions = DialOptions()) async throws(ParleyError) -> Call {
        let callID = RandomIdentifier.token(length: 24)
        let signalling = makeSignalling(callID: callID)
        let legs = makeLegs(first: signalling)
        let call = Call(id: callID, direction: .outgoing, remoteParty: destination, signalling: legs,
                        media: options.media.map(Self.withoutTrickle) ?? media, logger: logger, reconnectTimeout: flowRecovery.reconnectTimeout,
                        onPathLost: pathRecovery)
        await legs.bind(to: call)
        track(signalling, callID: callID)
        callsByID[callID] = call
        try await call.dial(destination: destination, options: options)
        return call
    }

    /// Unregisters and closes the flow; calls still up end with it.
    public func close() async {
        await stopRecovery()
        await registration.unregister()
        await endpoint.close()
        router?.cancel()
        incomingSink.finish()
        newsSink.finish()
    }

    func makeSignalling(callID: String) -> SIPCallSignalling {
        SIPCallSignalling(callID: callID, endpoint: endpoint, account: account, logger: logger,
                          onClose: { [weak self] id in await self?.forget(id) })
    }

    /// The call's dialogs: this one, then one more for each REFER it follows (`SIPCallLegs`).
    private func makeLegs(first: SIPCallSignalling) -> SIPCallLegs {
        SIPCallLegs(first: first, newLeg: { [weak self] in await self?.referredLeg() })
    }

    /// A new dialog for a call that follows a REFER, routed under its own Call-ID.
    private func referredLeg() -> SIPCallSignalling {
        let callID = RandomIdentifier.token(length: 24)
        let signalling = makeSignalling(callID: callID)
        track(signalling, callID: callID)
        return signalling
    }

    /// Routes the requests of the dialog under `callID` to `signalling`, in order.
    func track(_ signalling: SIPCallSignalling, callID: String) {
        calls[callID] = signalling
        inboxes[callID] = SIPCallInbox(for: signalling)
    }

    private func forget(_ callID: String) {
        calls[callID] = nil
        callsByID[callID] = nil
        inboxes.removeValue(forKey: callID)?.close()
    }

    /// The calls placed or offered that have not ended.
    public var activeCalls: [Call] { Array(callsByID.values) }

    /// The offered calls and the phone's news as a `VoiceClient`'s, for what serves either
    /// (`parley answer`).
    public nonisolated var clientEvents: AsyncStream<VoiceClientEvent> {
        let offers = incomingCalls
        let news = news
        return AsyncStream { continuation in
            // Unstructured: relays the offers for as long as the phone yields them; ends with them.
            let relay = Task {
                for await incoming in offers { continuation.yield(.incomingCall(incoming)) }
                continuation.finish()
            }
            // Unstructured: relays the phone's news beside the offers; ends with the phone.
            let newsRelay = Task {
                for await event in news { continuation.yield(event) }
            }
            continuation.onTermination = { _ in
                relay.cancel()
                newsRelay.cancel()
            }
        }
    }

    /// Routes the requests the current flow receives; its end is recovered (SIPPhone+FlowRecovery.swift).
    func startRouting() async {
        let served = endpoint
        await served.acceptRequests()
        let requests = served.incoming
        // Unstructured: the server's requests arrive for as long as the flow lives; a new flow gets a new router.
        router = Task { [weak self] in
            for await request in requests { await self?.route(request) }
            await self?.flowEnded(served)
        }
    }

    private func route(_ incoming: SIPIncomingRequest) async {
        switch incoming {
        case .ack(let ack):
            guard let callID = try? ack.callID() else { return }
            inboxes[callID]?.deliver(incoming)
        case .request(let key, let request):
            guard let callID = try? request.callID() else { return }
            if let inbox = inboxes[callID] {
                inbox.deliver(incoming)
            } else if request.method == "INVITE", (try? request.to().tag) == nil, request.header(SIPReplaces.header) != nil {
                await replacing(request, key: key, callID: callID)
            } else if request.method == "INVITE", (try? request.to().tag) == nil {
                await offered(request, key: key, callID: callID)
            } else {
                try? await endpoint.respond(to: key, with: .response(to: request, status: 481, reason: "Call/Transaction Does Not Exist",
                                                                     toTag: RandomIdentifier.token(length: 10)))
            }
        }
    }

    /// A new INVITE: a ringing incoming call; one without SDP is answered with our offer
    /// (docs/sip.md, "Delayed offer").
    private func offered(_ request: SIPMessage, key: SIPTransactionKey, callID: String) async {
        let caller = SIPCallerID(of: request)
        let signalling = makeSignalling(callID: callID)
        await signalling.offer(request, key: key)
        let legs = makeLegs(first: signalling)
        let call = Call(id: callID, direction: .incoming, remoteParty: caller.number ?? "unknown", signalling: legs, media: media, logger: logger,
                        reconnectTimeout: flowRecovery.reconnectTimeout, onPathLost: pathRecovery)
        await legs.bind(to: call)
        track(signalling, callID: callID)
        callsByID[callID] = call
        var incoming = IncomingCall(call: call, callerName: caller.name, callerNumber: caller.number, calleeName: nil,
                                    calleeNumber: account.user, headers: SIPCustomHeaders.extensions(of: request), clientState: nil,
                                    offer: request.body.isEmpty ? nil : String(decoding: request.body, as: UTF8.self))
        incoming.callerTrickles = false
        await call.sendRinging()
        if case .dropped(let oldest) = incomingSink.yield(incoming) {
            // 64 offers nobody took yet: the oldest is refused as busy, not left ringing unseen.
            logger.warning("refused an offered call as busy: 64 offers were waiting to be taken")
            try? await oldest.reject(cause: .userBusy)
        }
    }
}
