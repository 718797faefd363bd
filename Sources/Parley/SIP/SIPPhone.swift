import Foundation
import Logging
import Signaling

/// One SIP account registered over one flow, placing and taking calls (docs/sip.md, "Calls"):
/// the SIP counterpart of a logged-in `VoiceClient`. Its calls are ordinary `Call`s on the one
/// call driver; each has a `SIPCallSignalling`, to which the phone routes the requests the
/// server sends by Call-ID.
public actor SIPPhone {
    let endpoint: SIPEndpoint
    let registration: SIPRegistration
    private let account: SIPAccount
    private let media: MediaOptions
    private let logger: Logger
    private var calls: [String: SIPCallSignalling] = [:]
    /// Each call's requests, handed over in order without waiting for the call (`SIPCallInbox`).
    private var inboxes: [String: SIPCallInbox] = [:]
    private var callsByID: [String: Call] = [:]
    private var router: Task<Void, Never>?
    /// Calls offered to us, ringing (180 sent) until answered, rejected or cancelled.
    public nonisolated let incomingCalls: AsyncStream<IncomingCall>
    private let incomingSink: AsyncStream<IncomingCall>.Continuation

    /// Opens a flow to `server` (a `sip:` or `ws://` URL, docs/sip.md "Transports") and
    /// registers `user@domain` with `password`; the phone takes calls from then on. A `sips:` or
    /// `wss://` server's certificate is verified as `tls` says.
    public static func register(server: String, user: String, domain: String, password: String, media: MediaOptions,
                                tls: TLSVerification = .systemTrustStore, expiry: UInt32 = 600, logger: Logger = Logger(label: "parley.sip")) async throws(ParleyError) -> SIPPhone {
        try await register(server: server, user: user, domain: domain, password: password, media: media, tls: tls, expiry: expiry,
                           timers: SIPTimers(), logger: logger)
    }

    /// As above, with the transaction timers given: tests against hostile servers shorten T1.
    static func register(server: String, user: String, domain: String, password: String, media: MediaOptions, tls: TLSVerification,
                         expiry: UInt32, timers: SIPTimers, logger: Logger) async throws(ParleyError) -> SIPPhone {
        let phone = try await open(server: server, user: user, domain: domain, password: password, media: media, tls: tls,
                                   expiry: expiry, timers: timers, logger: logger)
        do {
            try await phone.registration.register()
        } catch {
            await phone.endpoint.close()
            throw ParleyError(error)
        }
        return phone
    }

    /// Opens a flow to `server` without registering (`parley call --no-register`): the phone
    /// places calls, each INVITE's 401 or 407 answered with the account's credentials, and is
    /// offered none, as the server has no binding to reach it by.
    public static func connect(server: String, user: String, domain: String, password: String, media: MediaOptions,
                               tls: TLSVerification = .systemTrustStore, logger: Logger = Logger(label: "parley.sip")) async throws(ParleyError) -> SIPPhone {
        try await open(server: server, user: user, domain: domain, password: password, media: media, tls: tls, expiry: 0,
                       timers: SIPTimers(), logger: logger)
    }

    private static func open(server: String, user: String, domain: String, password: String, media: MediaOptions, tls: TLSVerification,
                             expiry: UInt32, timers: SIPTimers, logger: Logger) async throws(ParleyError) -> SIPPhone {
        let address: SIPServerAddress
        do {
            address = try SIPServerAddress(parsing: server)
        } catch {
            throw ParleyError(kind: .configuration, message: "\(error)")
        }
        var options = SIPFlowOptions()
        options.tls = tls
        let endpoint = SIPEndpoint(server: address, options: options, timers: timers)
        do {
            try await endpoint.open()
        } catch {
            throw ParleyError(.sipTransport(error))
        }
        let phone = SIPPhone(endpoint: endpoint, account: SIPAccount(user: user, domain: domain, password: password), expiry: expiry,
                             media: media, logger: logger)
        await phone.startRouting()
        return phone
    }

    private init(endpoint: SIPEndpoint, account: SIPAccount, expiry: UInt32, media: MediaOptions, logger: Logger) {
        self.endpoint = endpoint
        registration = SIPRegistration(endpoint: endpoint, account: account, expiry: expiry)
        self.account = account
        self.media = Self.withoutTrickle(media)
        self.logger = logger
        (incomingCalls, incomingSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
    }

    /// SIP offers and answers carry every candidate: a trickling configuration gathers first.
    static func withoutTrickle(_ media: MediaOptions) -> MediaOptions {
        guard case .trickle = media.iceMode else { return media }
        var vanilla = media
        vanilla.iceMode = .vanilla(collectionTimeout: .seconds(3))
        return vanilla
    }

    /// Calls `destination` (a user in our domain, `user@host` or a `sip:` URI), with the
    /// phone's media options or the call's own (`options.media`); the call is dialing when this
    /// returns.
    public func dial(_ destination: String, options: DialOptions = DialOptions()) async throws(ParleyError) -> Call {
        let callID = RandomIdentifier.token(length: 24)
        let signalling = makeSignalling(callID: callID)
        let call = Call(id: callID, direction: .outgoing, remoteParty: destination, signalling: signalling,
                        media: options.media.map(Self.withoutTrickle) ?? media, logger: logger)
        await signalling.bind(to: call)
        track(signalling, call: call)
        try await call.dial(destination: destination, options: options)
        return call
    }

    /// Unregisters and closes the flow; calls still up end with it.
    public func close() async {
        await registration.unregister()
        await endpoint.close()
        router?.cancel()
        incomingSink.finish()
    }

    private func makeSignalling(callID: String) -> SIPCallSignalling {
        SIPCallSignalling(callID: callID, endpoint: endpoint, account: account, logger: logger,
                          onClose: { [weak self] id in await self?.forget(id) })
    }

    private func track(_ signalling: SIPCallSignalling, call: Call) {
        calls[call.id] = signalling
        callsByID[call.id] = call
        inboxes[call.id] = SIPCallInbox(for: signalling)
    }

    private func forget(_ callID: String) {
        calls[callID] = nil
        callsByID[callID] = nil
        inboxes.removeValue(forKey: callID)?.close()
    }

    /// The calls placed or offered that have not ended.
    public var activeCalls: [Call] { Array(callsByID.values) }

    /// The offered calls as a `VoiceClient`'s news, for what serves either (`parley answer`).
    public nonisolated var clientEvents: AsyncStream<VoiceClientEvent> {
        let offers = incomingCalls
        return AsyncStream { continuation in
            // Unstructured: relays the offers for as long as the phone yields them; ends with them.
            let relay = Task {
                for await incoming in offers { continuation.yield(.incomingCall(incoming)) }
                continuation.finish()
            }
            continuation.onTermination = { _ in relay.cancel() }
        }
    }

    private func startRouting() async {
        await endpoint.acceptRequests()
        let requests = endpoint.incoming
        // Unstructured: the server's requests arrive for as long as the phone is registered.
        router = Task { [weak self] in
            for await request in requests { await self?.route(request) }
            await self?.flowEnded()
        }
    }

    /// The flow ended (the server closed it, the network lost it, a stream lost its framing):
    /// no BYE or re-INVITE can go out any more, so each call still up ends with the error.
    private func flowEnded() async {
        guard let error = await endpoint.closedError, error != .closed else { return }
        logger.warning("the SIP flow ended: \(error)")
        for signalling in calls.values { await signalling.flowLost(error) }
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
            } else if request.method == "INVITE", (try? request.to().tag) == nil {
                await offered(request, key: key, callID: callID)
            } else {
                try? await endpoint.respond(to: key, with: .response(to: request, status: 481, reason: "Call/Transaction Does Not Exist",
                                                                     toTag: RandomIdentifier.token(length: 10)))
            }
        }
    }

    /// A new INVITE: a ringing incoming call, or 488 when it offers no SDP to answer.
    private func offered(_ request: SIPMessage, key: SIPTransactionKey, callID: String) async {
        guard !request.body.isEmpty else {
            try? await endpoint.respond(to: key, with: .response(to: request, status: 488, reason: "Not Acceptable Here",
                                                                 toTag: RandomIdentifier.token(length: 10)))
            return
        }
        let caller = SIPCallerID(of: request)
        let signalling = makeSignalling(callID: callID)
        await signalling.offer(request, key: key)
        let call = Call(id: callID, direction: .incoming, remoteParty: caller.number ?? "unknown", signalling: signalling, media: media, logger: logger)
        await signalling.bind(to: call)
        track(signalling, call: call)
        var incoming = IncomingCall(call: call, callerName: caller.name, callerNumber: caller.number, calleeName: nil,
                                    calleeNumber: account.user, headers: SIPCustomHeaders.extensions(of: request), clientState: nil,
                                    offer: String(decoding: request.body, as: UTF8.self))
        incoming.callerTrickles = false
        await call.sendRinging()
        if case .dropped(let oldest) = incomingSink.yield(incoming) {
            // 64 offers nobody took yet: the oldest is refused as busy, not left ringing unseen.
            logger.warning("refused an offered call as busy: 64 offers were waiting to be taken")
            try? await oldest.reject(cause: .userBusy)
        }
    }
}
