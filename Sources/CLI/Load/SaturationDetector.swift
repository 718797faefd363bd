import Foundation

/// Whether this process (`parley load`'s generator, `parley answer`'s callee) is itself the
/// bottleneck, judged once a second from its own health: its media clocks' lateness, its CPU
/// against what it may use, and (load only) how late calls begin against the rate asked. A bound
/// must be crossed for `samplesToSaturate` seconds in a row to flag the process, and every
/// signal must stay within its bound for `samplesToClear` seconds in a row to clear it, so one
/// late frame or one busy second does not flag a run (docs/performance.md, "When the load
/// generator is the bottleneck").
struct SaturationDetector {
    enum Signal: String, Encodable, Sendable {
        case mediaClock = "media-clock"
        case cpu
        case dialLag = "dial-lag"
    }

    /// One second (about) of the process's health.
    struct Sample {
        /// The end of the sample, and its length in seconds.
        var at: Date
        var seconds: Double
        /// Media-clock session steps in the sample (one per call per 20 ms tick), and those that
        /// finished a whole frame after their tick was due.
        var steps = 0
        var frameLateSteps = 0
        /// CPU the process used in the sample (user and system), and the cores it may use.
        var cpuSeconds = 0.0
        var cores = 1.0
        /// The longest a call waited past when the rate asked for it before its dial began; nil
        /// where nothing dials (`parley answer`).
        var dialLagMs: Int? = nil
    }

    /// The bounds and why (docs/performance.md gives the reasons at more length).
    struct Bounds {
        /// `make bench` calls a step held while under 1 % of frames leave a whole frame late.
        var frameLateShare = 0.01
        /// Fewer steps than one call-second say nothing about a share.
        var minimumSteps = 50
        /// At 90 % of the CPU it may use, a process's threads queue behind each other.
        var cpuShare = 0.9
        /// Calls beginning half a second late: the rate asked is not what the system sees.
        var dialLagMs = 500
        var samplesToSaturate = 3
        var samplesToClear = 5
    }

    /// A signal over its bound: which, its figure and bound, and a sentence saying so.
    struct Breach: Equatable, Encodable, Sendable {
        let signal: Signal
        let value: Double
        let bound: Double
        let reason: String
    }

    /// A span during which the process was saturated: from the first second of the streak that
    /// flagged it, with the breach that flagged it.
    struct Episode: Equatable, Sendable {
        let since: Date
        let breach: Breach
    }

    enum Change: Equatable, Sendable {
        case saturated(Episode)
        case cleared(at: Date, after: Episode)
    }

    let bounds: Bounds
    private(set) var current: Episode?
    /// The first episode of the run: what the summary reports.
    private(set) var first: Episode?
    private(set) var episodes = 0
    /// Seconds spent saturated, from each episode's start to its clearing.
    private(set) var saturatedSeconds = 0.0
    private var over: (count: Int, since: Date, seconds: Double) = (0, .distantPast, 0)
    private var within = 0

    init(bounds: Bounds = Bounds()) {
        self.bounds = bounds
    }

    /// The first signal of `sample` over its bound, media clock first (the figure a listener hears).
    func breach(_ sample: Sample) -> Breach? {
        let saturate = "for \(bounds.samplesToSaturate) s"
        if sample.steps >= bounds.minimumSteps {
            let share = Double(sample.frameLateSteps) / Double(sample.steps)
            if share > bounds.frameLateShare {
                return Breach(signal: .mediaClock, value: share, bound: bounds.frameLateShare,
                              reason: String(format: "media clock: %.1f%% of frames sent a whole 20 ms frame late, over %g%% %@", share * 100,
                                             bounds.frameLateShare * 100, saturate))
            }
        }
        if sample.seconds > 0, sample.cores > 0 {
            let share = sample.cpuSeconds / (sample.seconds * sample.cores)
            if share >= bounds.cpuShare {
                return Breach(signal: .cpu, value: share, bound: bounds.cpuShare,
                              reason: String(format: "CPU: %.0f%% of the %g cores it may use, at least %g%% %@", share * 100, sample.cores,
                                             bounds.cpuShare * 100, saturate))
            }
        }
        if let lag = sample.dialLagMs, lag > bounds.dialLagMs {
            return Breach(signal: .dialLag, value: Double(lag), bound: Double(bounds.dialLagMs),
                          reason: "dial rate: calls began up to \(lag) ms after the rate asked for them, over \(bounds.dialLagMs) ms \(saturate)")
        }
        return nil
    }

    /// Takes the next sample; returns a change of state when this one flags or clears the process.
    mutating func add(_ sample: Sample) -> Change? {
        let breach = breach(sample)
        if current != nil { saturatedSeconds += sample.seconds }
        guard let breach else {
            over = (0, .distantPast, 0)
            within += 1
            guard let episode = current, within >= bounds.samplesToClear else { return nil }
            current = nil
            return .cleared(at: sample.at, after: episode)
        }
        within = 0
        if over.count == 0 { over.since = sample.at.addingTimeInterval(-sample.seconds) }
        over.count += 1
        over.seconds += sample.seconds
        guard current == nil, over.count >= bounds.samplesToSaturate else { return nil }
        let episode = Episode(since: over.since, breach: breach)
        current = episode
        if first == nil { first = episode }
        episodes += 1
        saturatedSeconds += over.seconds
        return .saturated(episode)
    }
}
