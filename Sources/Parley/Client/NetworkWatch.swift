import ICE
import Logging

/// The host's network changes that may concern our calls, settled: changes come in bursts (an
/// address and its routes), so each burst is judged once, a moment after its first change.
actor NetworkWatch {
    private let monitor: NetworkMonitor
    private let logger: Logger
    private var pump: Task<Void, Never>?
    private var settling: Task<Void, Never>?
    /// The changes of the burst on interfaces media may use.
    private var mediaChanges: [NetworkChange] = []

    /// Starts watching; `concerns` says whether a change matters at all and whether media may use
    /// it, `settled` judges each burst, given its changes that media may use (each call then
    /// decides whether they touch its path). Nil when the host cannot be watched (then
    /// reconnection relies on the socket and ICE alone).
    static func start(logger: Logger, concerns: @escaping @Sendable (NetworkChange) async -> (matters: Bool, media: Bool),
                      settled: @escaping @Sendable (_ mediaChanges: [NetworkChange]) async -> Void) -> NetworkWatch? {
        let monitor: NetworkMonitor
        do {
            monitor = try NetworkMonitor()
        } catch {
            logger.warning("not watching the network (\(error)); reconnection relies on the socket and ICE alone")
            return nil
        }
        let watch = NetworkWatch(monitor: monitor, logger: logger)
        // Unstructured: the watch lives as long as its client, started from a synchronous factory; `stop` ends it.
        Task { await watch.run(concerns: concerns, settled: settled) }
        return watch
    }

    private init(monitor: NetworkMonitor, logger: Logger) {
        self.monitor = monitor
        self.logger = logger
    }

    func close() {
        pump?.cancel()
        settling?.cancel()
        monitor.close()
    }

    private func run(concerns: @escaping @Sendable (NetworkChange) async -> (matters: Bool, media: Bool),
                     settled: @escaping @Sendable ([NetworkChange]) async -> Void) {
        let changes = monitor.events
        // Unstructured: the change pump lives as long as the watch; `stop` cancels it.
        pump = Task { [weak self] in
            for await change in changes {
                let scope = await concerns(change)
                guard scope.matters else { continue }
                await self?.noted(change, media: scope.media, settled: settled)
            }
        }
    }

    private func noted(_ change: NetworkChange, media: Bool, settled: @escaping @Sendable ([NetworkChange]) async -> Void) {
        logger.debug("network change: \(change)")
        if media { mediaChanges.append(change) }
        guard settling == nil else { return }
        // Unstructured: a settling delay that gathers the changes arriving meanwhile; cancelled with the watch.
        settling = Task { [weak self] in
            guard (try? await Task.sleep(for: .milliseconds(50))) != nil else { return }
            guard let changes = await self?.settle() else { return }
            await settled(changes)
        }
    }

    private func settle() -> [NetworkChange] {
        settling = nil
        defer { mediaChanges = [] }
        return mediaChanges
    }
}
