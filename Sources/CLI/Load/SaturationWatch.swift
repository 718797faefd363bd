import CoreMetrics
import Foundation
import Locking
import Media
import Parley
import Signaling

/// Samples this process's health once a second into a `SaturationDetector` while a run lasts,
/// and says when it flags or clears: a warning line on standard error, a `saturation` event with
/// `--json`, and the `parley_saturated` gauge and `parley_saturations_total` counter
/// (docs/cli.md, docs/metrics.md). Reads counters the engine keeps anyway: nothing per packet.
final class SaturationWatch: Sendable {
    enum Role: Sendable {
        /// `parley load`: its figures after the flag are not the system's.
        case generator
        /// `parley answer`: its lateness and concealment after the flag are its own doing.
        case callee
    }

    private let engine: MediaEngine
    private let presenter: CallPresenter
    private let role: Role
    /// The longest a call has waited past its time by the rate asked since the last look (load).
    private let dialLag: (@Sendable () async -> Int)?
    private let detector = Lock(SaturationDetector())

    init(engine: MediaEngine, presenter: CallPresenter, role: Role, dialLag: (@Sendable () async -> Int)? = nil) {
        self.engine = engine
        self.presenter = presenter
        self.role = role
        self.dialLag = dialLag
    }

    /// Samples until cancelled.
    func run() async {
        Gauge(label: "parley_saturated").record(0)
        let cores = ProcessCPU.availableCores()
        var last = (instant: ContinuousClock.now, lateness: engine.lateness, cpu: ProcessCPU.seconds() ?? 0)
        while !Task.isCancelled {
            do { try await Task.sleep(for: .seconds(1)) } catch { return }
            let lag = await dialLag?()
            let now = (instant: ContinuousClock.now, lateness: engine.lateness, cpu: ProcessCPU.seconds() ?? last.cpu)
            let sample = SaturationDetector.Sample(
                at: Date(), seconds: (now.instant - last.instant).inSeconds, steps: now.lateness.sessionTicks - last.lateness.sessionTicks,
                frameLateSteps: now.lateness.frameLateSessionTicks - last.lateness.frameLateSessionTicks, cpuSeconds: now.cpu - last.cpu,
                cores: cores, dialLagMs: lag)
            last = now
            if let change = detector.withLock({ $0.add(sample) }) { announce(change) }
        }
    }

    /// The run's first saturation, for its summary; nil when the process kept up throughout.
    var report: SaturationReport? {
        detector.withLock { detector in
            detector.first.map { SaturationReport($0, episodes: detector.episodes, seconds: detector.saturatedSeconds, role: role) }
        }
    }

    private func announce(_ change: SaturationDetector.Change) {
        switch change {
        case .saturated(let episode):
            Gauge(label: "parley_saturated").record(1)
            Counter(label: "parley_saturations_total", dimensions: [("signal", episode.breach.signal.rawValue)]).increment()
            presenter.processWarning("warning: " + SaturationReport.sentence(episode, role: role))
            if presenter.json { JSONEvents.emit("saturation", SaturationEventPayload(state: "saturated", episode: episode, clearedAt: nil)) }
        case .cleared(let at, let episode):
            Gauge(label: "parley_saturated").record(0)
            let seconds = Int(at.timeIntervalSince(episode.since).rounded())
            presenter.processWarning("\(role.name) no longer saturated at \(SaturationReport.clockTime(at)) (saturated \(seconds) s from \(SaturationReport.clockTime(episode.since)))")
            if presenter.json { JSONEvents.emit("saturation", SaturationEventPayload(state: "cleared", episode: episode, clearedAt: at)) }
        }
    }
}

extension SaturationWatch.Role {
    var name: String {
        switch self {
        case .generator: "load generator"
        case .callee: "parley answer"
        }
    }
}

/// What a `saturation` event and the summary's `saturation` both say of an episode.
struct SaturationFields: Encodable, Sendable {
    let since: String
    let signal: SaturationDetector.Signal
    let value: Double
    let bound: Double
    let reason: String

    init(_ episode: SaturationDetector.Episode) {
        since = SaturationReport.timestamp.format(episode.since)
        signal = episode.breach.signal
        value = (episode.breach.value * 10_000).rounded() / 10_000
        bound = episode.breach.bound
        reason = episode.breach.reason
    }
}

/// A `saturation` event: `saturated` when the process is flagged, `cleared` when it has kept up
/// again (with `seconds` from `since` to the clearing).
struct SaturationEventPayload: Encodable {
    let state: String
    let fields: SaturationFields
    let seconds: Double?

    private enum CodingKeys: String, CodingKey { case state, seconds }

    init(state: String, episode: SaturationDetector.Episode, clearedAt: Date?) {
        self.state = state
        fields = SaturationFields(episode)
        seconds = clearedAt.map { CallPresenter.rounded($0.timeIntervalSince(episode.since)) }
    }

    func encode(to encoder: any Encoder) throws {
        try fields.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(state, forKey: .state)
        try container.encodeIfPresent(seconds, forKey: .seconds)
    }
}

/// The summary's `saturation`: when the process first became the bottleneck, which signal
/// crossed which bound, how many times it happened and how long it lasted in all.
struct SaturationReport: Encodable, Sendable {
    let since: Date
    let fields: SaturationFields
    let episodes: Int
    let seconds: Double
    /// The sentence of the summary and of the live warning.
    let text: String

    private enum CodingKeys: String, CodingKey { case episodes, seconds }

    init(_ episode: SaturationDetector.Episode, episodes: Int, seconds: Double, role: SaturationWatch.Role) {
        since = episode.since
        fields = SaturationFields(episode)
        self.episodes = episodes
        self.seconds = CallPresenter.rounded(seconds)
        text = Self.sentence(episode, role: role)
    }

    func encode(to encoder: any Encoder) throws {
        try fields.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(episodes, forKey: .episodes)
        try container.encode(seconds, forKey: .seconds)
    }

    static func sentence(_ episode: SaturationDetector.Episode, role: SaturationWatch.Role) -> String {
        let consequence = switch role {
        case .generator: "figures after that are not the system's"
        case .callee: "its lateness and concealment after that are its own, not the callers'"
        }
        return "\(role.name) saturated from \(clockTime(episode.since)) (\(episode.breach.reason)): \(consequence)"
    }

    static let timestamp = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// HH:MM:SS in the local time zone, as a person reads a log beside it.
    static func clockTime(_ date: Date) -> String {
        let parts = Calendar.current.dateComponents([.hour, .minute, .second], from: date)
        return String(format: "%02d:%02d:%02d", parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
    }
}
