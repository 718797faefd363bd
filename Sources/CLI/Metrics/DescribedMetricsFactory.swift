import CoreMetrics
import Prometheus

/// swift-metrics onto a Prometheus registry, as swift-prometheus' own factory does, but with
/// each metric's `# HELP` line (MetricHelp): that factory registers every metric without one.
/// Removal goes through that factory. Every metric also carries `constantLabels` (the process's
/// dialect).
struct DescribedMetricsFactory: MetricsFactory {
    let registry: PrometheusCollectorRegistry
    let constantLabels: [(String, String)]
    let durationBuckets: [String: [Duration]]
    let valueBuckets: [String: [Double]]
    private let plain: PrometheusMetricsFactory

    init(registry: PrometheusCollectorRegistry, constantLabels: [(String, String)] = [], durationBuckets: [String: [Duration]], valueBuckets: [String: [Double]]) {
        self.registry = registry
        self.constantLabels = constantLabels
        self.durationBuckets = durationBuckets
        self.valueBuckets = valueBuckets
        plain = PrometheusMetricsFactory(registry: registry)
    }

    private func descriptor(_ label: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: label, unitName: "", helpText: MetricHelp.text[label] ?? "")
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions + constantLabels)
    }

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions + constantLabels)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard aggregate else { return registry.makeGauge(descriptor: descriptor(label), labels: dimensions + constantLabels) }
        return registry.makeValueHistogram(descriptor: descriptor(label), labels: dimensions + constantLabels, buckets: valueBuckets[label] ?? plain.defaultValueHistogramBuckets)
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        registry.makeGauge(descriptor: descriptor(label), labels: dimensions + constantLabels)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        registry.makeDurationHistogram(descriptor: descriptor(label), labels: dimensions + constantLabels,
                                       buckets: durationBuckets[label] ?? plain.defaultDurationHistogramBuckets)
    }

    func destroyCounter(_ handler: any CounterHandler) { plain.destroyCounter(handler) }
    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) { plain.destroyFloatingPointCounter(handler) }
    func destroyRecorder(_ handler: any RecorderHandler) { plain.destroyRecorder(handler) }
    func destroyMeter(_ handler: any MeterHandler) { plain.destroyMeter(handler) }
    func destroyTimer(_ handler: any TimerHandler) { plain.destroyTimer(handler) }
}
