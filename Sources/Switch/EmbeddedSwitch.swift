import Foundation
import Signaling

/// The embedded Verto/Telnyx switch on a real WebSocket server: `parley demo`, the tests and
/// `parley switch` talk to it like to a hosted service.
package actor EmbeddedSwitch {
    package nonisolated let port: Int
    package nonisolated let url: WebSocketURL
    package nonisolated let activity: AsyncStream<SwitchActivity>
    private let activitySink: AsyncStream<SwitchActivity>.Continuation
    private let server: WebSocketServer
    private var core: SwitchCore
    private var peers: [Int: WebSocketPeer] = [:]
    private var timerTask: Task<Void, Never>?
    private let clock = ElapsedClock()
    private let directory: SoftphoneDirectory?
    /// The calls clients rated, for "/feedback.json" beside "/online.json".
    private let ratings: SwitchRatings?

    private init(server: WebSocketServer, url: WebSocketURL, configuration: SwitchConfiguration, directory: SoftphoneDirectory?, ratings: SwitchRatings?) {
        self.server = server
        self.directory = directory
        self.ratings = ratings
        self.port = server.port
        self.url = url
        core = SwitchCore(configuration: configuration)
        (activity, activitySink) = AsyncStream.makeStream(of: SwitchActivity.self, bufferingPolicy: .bufferingNewest(1000))
    }

    /// Starts listening on `listen` (ws:// or wss://; port 0 picks a free one).
    package static func start(listen: WebSocketURL, configuration: SwitchConfiguration,
                             certificatePath: String? = nil, privateKeyPath: String? = nil) async throws(WebSocketError) -> EmbeddedSwitch {
        if listen.secure, certificatePath == nil || privateKeyPath == nil {
            throw .listenFailed("wss:// needs a certificate and a private key")
        }
        var options = WebSocketServerOptions(bindAddress: listen.host, port: listen.port,
                                             certificatePath: listen.secure ? certificatePath : nil,
                                             privateKeyPath: listen.secure ? privateKeyPath : nil)
        options.pingAfterIdleSeconds = 60
        options.dropAfterIdleSeconds = 120
        let directory = configuration.servesSoftphone ? SoftphoneDirectory() : nil
        let ratings = configuration.servesSoftphone ? SwitchRatings() : nil
        if let directory, let ratings { options.httpResources = SoftphoneSite.resources + [directory.resource, ratings.resource] }
        let server = try await WebSocketServer.listen(options)
        var bound = listen
        bound.port = server.port
        bound.path = "/"
        let embedded = EmbeddedSwitch(server: server, url: bound, configuration: configuration, directory: directory, ratings: ratings)
        await embedded.run()
        return embedded
    }

    package func stop() {
        timerTask?.cancel()
        server.stop()
        activitySink.finish()
    }

    /// Tells each client its calls are over (a bye for each, SYSTEM_SHUTDOWN) and closes every
    /// socket with a close frame (1001, going away), then stops. The close frames wait until
    /// the clients have answered the byes, for at most `drain` (a close frame other than a
    /// normal one does not wait for what is queued before it: WebSocketService.write).
    package func shutDown(drain: Duration = .seconds(1)) async {
        timerTask?.cancel()
        core.shutDown()
        let actions = core.takeActions()
        perform(actions.filter { if case .close = $0 { false } else { true } })
        let deadline = ContinuousClock.now + drain
        for _ in 0..<1000 where ContinuousClock.now < deadline {
            guard !core.shutdownByesAnswered || peers.values.contains(where: { server.unsentBytes(to: $0) > 0 }) else { break }
            try? await Task.sleep(for: .milliseconds(5))
        }
        perform(actions.filter { if case .close = $0 { true } else { false } })
        // The close frames leave on the service thread; the listener stops once they are out.
        let closing = ContinuousClock.now + drain
        for _ in 0..<1000 where ContinuousClock.now < closing && !peers.isEmpty {
            try? await Task.sleep(for: .milliseconds(5))
        }
        stop()
    }

    /// Closes every socket `login` has open, as a proxy cutting it would; its calls detach.
    package func dropConnections(of login: String) {
        for (id, link) in core.links where link.login == login {
            guard let peer = peers[id] else { continue }
            server.close(peer, code: WebSocketCloseCode.goingAway, reason: "connection dropped")
        }
    }

    package var activeCallIDs: [String] { core.activeCallIDs }
    /// The numeric addresses the switch listens on.
    package nonisolated var addresses: [String] { server.addresses }
    package var onlineLogins: [String] { core.onlineLogins }

    // MARK: Driving the core

    private var now: Double { clock.seconds }

    private func run() {
        let events = server.events
        // Unstructured: the switch's event pump lives as long as the switch, which callers start and stop across scopes; it ends with the server's stream.
        Task { [weak self] in
            for await event in events { await self?.handle(event) }
        }
        // Unstructured: the switch's timer lives until `stop` cancels it, past the scope of `start`.
        timerTask = Task { [weak self] in
            while !Task.isCancelled {
                guard let delay = await self?.tick() else { return }
                try? await Task.sleep(for: .seconds(delay))
            }
        }
    }

    private func handle(_ event: WebSocketServerEvent) {
        switch event {
        case .accepted(let peer):
            peers[peer.id] = peer
            core.connected(peer: peer.id, address: peer.address, now: now)
        case .peer(let id, .text(let text)):
            core.received(text, from: id, now: now)
        case .peer(let id, .closed):
            peers[id] = nil
            core.disconnected(peer: id, now: now)
        case .peer(_, .refused), .peer(_, .opened):
            break
        }
        perform()
    }

    private func tick() -> Double {
        core.tick(now: now)
        perform()
        guard let deadline = core.nextDeadline else { return 1 }
        return min(1, max(0.01, deadline - now))
    }

    private func perform() {
        // Before the replies go out: a client that saw its login answered finds itself listed.
        directory?.update(core.onlineLogins)
        perform(core.takeActions())
    }

    private func perform(_ actions: [SwitchAction]) {
        for action in actions {
            switch action {
            case .send(let id, let text):
                guard let peer = peers[id] else { continue }
                try? server.send(text, to: peer)
            case .close(let id, let code, let reason):
                guard let peer = peers[id] else { continue }
                server.close(peer, code: code, reason: reason)
            case .activity(let activity):
                if case .callRated(let rating) = activity { ratings?.add(rating) }
                activitySink.yield(activity)
            }
        }
    }
}
