import ArgumentParser

/// `--metrics` and `--metrics-linger`, shared by `answer`, `load` and `switch`.
struct MetricsFlags: ParsableArguments {
    @Option(help: ArgumentHelp("Serve Prometheus metrics at http://ADDR:PORT/metrics (and readiness at /ready); PORT alone binds loopback.",
                               valueName: "ADDR:PORT"))
    var metrics: String?

    @Option(name: .customLong("metrics-linger"), help: "Seconds to keep serving metrics after the run ends, for a last scrape.")
    var metricsLinger: Duration = .zero

    func validate() throws {
        if let metrics {
            do { _ = try MetricsAddress(parsing: metrics) } catch { throw ValidationError(error.description) }
        }
        guard (.zero ... .seconds(3600)).contains(metricsLinger) else { throw ValidationError("--metrics-linger must be 0-3600 seconds") }
        if metricsLinger > .zero, metrics == nil { throw ValidationError("--metrics-linger needs --metrics") }
    }

    /// Starts the listener when `--metrics` was given; nil otherwise. Every metric carries
    /// `dialect`, the signalling the process speaks, so one dashboard can hold Verto, Janus and
    /// SIP fleets apart.
    func start(json: Bool, dialect: ConnectionOptions.Dialect) async throws -> MetricsEndpoint? {
        guard let metrics else { return nil }
        let address = try MetricsAddress(parsing: metrics)
        do {
            let endpoint = try await MetricsEndpoint.start(address, dialect: dialect.rawValue)
            endpoint.announce(json: json)
            return endpoint
        } catch {
            Diagnostics.fail("--metrics \(address): \(error)", json: json, code: "metrics.listen")
        }
    }

    /// Keeps serving for `--metrics-linger` seconds, so a scraper sees the final figures.
    func linger(_ endpoint: MetricsEndpoint?) async {
        guard let endpoint, metricsLinger > .zero else { return }
        endpoint.ready(false)
        try? await Task.sleep(for: metricsLinger)
    }
}
