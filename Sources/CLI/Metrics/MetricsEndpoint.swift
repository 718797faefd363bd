import CoreMetrics
import Foundation
import Prometheus
import Signaling
import Synchronization

/// The process's metrics listener (docs/metrics.md): swift-metrics bootstrapped onto a
/// Prometheus registry, served by libwebsockets on a port of its own at `/metrics`, with
/// `/ready` answering 200 once the process is ready for work (a bot logged in) and 503 before
/// that and while it drains.
final class MetricsEndpoint: Sendable {
    /// True once an endpoint runs: work that only metrics need (first-audio timing) is skipped
    /// otherwise. Without a bootstrap, swift-metrics' handlers do nothing.
    static var enabled: Bool { started.load(ordering: .relaxed) }
    private static let started = Atomic<Bool>(false)

    let address: MetricsAddress
    let port: Int
    private let server: WebSocketServer
    private let readiness: ReadinessFlag
    private let readyGauge = Gauge(label: "parley_ready")

    private init(address: MetricsAddress, server: WebSocketServer, readiness: ReadinessFlag) {
        self.address = address
        port = server.port
        self.server = server
        self.readiness = readiness
    }

    static func start(_ address: MetricsAddress, dialect: String) async throws(WebSocketError) -> MetricsEndpoint {
        let registry = PrometheusCollectorRegistry()
        if !started.exchange(true, ordering: .relaxed) { MetricsSystem.bootstrap(CallMetrics.factory(registry: registry, dialect: dialect)) }
        let ready = ReadinessFlag()
        var options = WebSocketServerOptions(bindAddress: address.host, port: address.port)
        options.httpResources = [
            HTTPResource(path: "/metrics", contentType: "text/plain; version=0.0.4; charset=utf-8",
                         generator: HTTPGenerator { HTTPReply(status: 200, body: registry.emitToBuffer()) }),
            HTTPResource(path: "/ready", contentType: "text/plain; charset=utf-8",
                         generator: HTTPGenerator { ready.value ? HTTPReply(status: 200, body: Array("ready\n".utf8)) : HTTPReply(status: 503, body: Array("not ready\n".utf8)) }),
        ]
        let server = try await WebSocketServer.listen(options)
        // Nothing speaks WebSocket here: an upgrade that gets through is closed at once.
        // Unstructured: closes stray WebSocket upgrades for the endpoint's life, the process's.
        Task {
            for await event in server.events {
                if case .accepted(let peer) = event { server.close(peer) }
            }
        }
        let endpoint = MetricsEndpoint(address: address, server: server, readiness: ready)
        endpoint.ready(false)
        return endpoint
    }

    /// `/ready` answers 200 from now on (true) or 503 (false).
    func ready(_ value: Bool) {
        readiness.flag.store(value, ordering: .relaxed)
        readyGauge.record(value ? 1 : 0)
    }

    var url: String {
        let host = address.host.contains(":") ? "[\(address.host)]" : address.host
        return "http://\(host):\(port)/metrics"
    }

    func announce(json: Bool) {
        if json { JSONEvents.emit("metrics", MetricsPayload(url: url)) } else { Diagnostics.say("metrics at \(url)") }
    }

    func stop() { server.stop() }
}

/// The readiness bit, shared by the endpoint and the `/ready` generator on the service thread.
private final class ReadinessFlag: Sendable {
    let flag = Atomic<Bool>(false)
    var value: Bool { flag.load(ordering: .relaxed) }
}

private struct MetricsPayload: Encodable { let url: String }
